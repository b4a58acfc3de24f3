// Child processes run plain node (Node 20 cannot load .ts), so tests transpile this package's current
// sources to a temp dir first: the children exercise exactly the code under test, never a stale dist/.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

export function transpileSources(srcDir, outDir) {
  mkdirSync(outDir, { recursive: true });
  for (const f of readdirSync(srcDir)) {
    if (!f.endsWith(".ts") || f.endsWith(".test.ts") || f.endsWith(".d.ts")) continue;
    const out = ts.transpileModule(readFileSync(join(srcDir, f), "utf8"), {
      fileName: f,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    writeFileSync(join(outDir, f.replace(/\.ts$/, ".js")), out.outputText);
  }
  writeFileSync(join(outDir, "package.json"), '{"type":"module"}\n');
  return outDir;
}
