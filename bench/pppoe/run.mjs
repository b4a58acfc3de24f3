#!/usr/bin/env node
// PPPoE benchmark: boots the full-kernel lab VM once (scripts/kernel-lab, as the kernel test tier does),
// runs bench/pppoe/session-up.scenarios.ts inside and prints the medians. As root, after
// `npx turbo run build` (routerd serve and routerd-pppoe-client run from their dist).
// --timeline runs timeline.scenarios.ts instead: where serve's time to the session goes, and what program
// starts cost in the VM (its time lines are printed as they are).
//
//   node bench/pppoe/run.mjs [--json] [--timeline]
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build, RolldownMagicString } from "rolldown";

const repo = new URL("../..", import.meta.url).pathname;
const json = process.argv.includes("--json");
const timeline = process.argv.includes("--timeline");

// The tier's host side is TypeScript: bundle it for Node, keeping its own import.meta.url (it finds the
// repository and the guest's entry point from it).
async function loadVmRunner() {
  // Inside the repository, so the bundle's external imports (rolldown) resolve from its node_modules.
  const cache = join(repo, "node_modules/.cache");
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, "pppoe-bench-"));
  try {
    const file = join(dir, "vm.mjs");
    await build({
      input: join(repo, "test-e2e/kernel/lib/vm.ts"),
      platform: "node",
      logLevel: "warn",
      external: [/^node:/, "rolldown"],
      plugins: [
        {
          name: "keep-module-urls",
          transform(code, id) {
            if (!code.includes("import.meta.url")) return null;
            return { code: new RolldownMagicString(code).replaceAll("import.meta.url", JSON.stringify(pathToFileURL(id).href)) };
          },
        },
      ],
      resolve: { extensionAlias: { ".js": [".ts", ".js"] } },
      output: { file, format: "esm" },
    });
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const { runScenariosInVm } = await loadVmRunner();
const run = await runScenariosInVm(join(repo, `bench/pppoe/${timeline ? "timeline" : "session-up"}.scenarios.ts`), { timeoutS: 6600 });
const figures = [];
for (const [name, result] of Object.entries(run.report?.results ?? {})) {
  if (!result.ok) {
    process.stderr.write(`FAILED: ${name}\n${result.error}\n${result.log.join("\n").slice(timeline ? -20000 : -3000)}\n`);
    continue;
  }
  for (const line of result.log) {
    if (line.startsWith("{")) figures.push(JSON.parse(line));
    else if (timeline && !json) process.stdout.write(line + "\n");
  }
}
if (!run.report || figures.length === 0) {
  process.stderr.write(`the benchmark VM did not report (exit ${run.code}):\n${run.output.slice(-3000)}\n`);
  process.exit(1);
}
const byHand = figures.find((f) => f.figure === "session up: pppd by hand");
const rows = figures.map((f) => ({ ...f, median: median(f.samples), ratio: byHand && f.figure.startsWith("session up") ? median(f.samples) / median(byHand.samples) : undefined }));
if (json) {
  process.stdout.write(JSON.stringify({ bootToFirstCommandS: run.report.uptimeAtStart, vmWallMs: run.wallMs, figures: rows }, null, 2) + "\n");
} else {
  process.stdout.write(`VM: first command at ${run.report.uptimeAtStart.toFixed(1)} s of guest uptime, VM wall ${(run.wallMs / 1000).toFixed(0)} s\n`);
  for (const r of rows) {
    const ratio = r.ratio !== undefined ? `  (${r.ratio.toFixed(2)}x pppd by hand)` : "";
    process.stdout.write(`${r.figure.padEnd(48)} median ${String(Math.round(r.median)).padStart(6)} ms  of [${r.samples.join(", ")}]${ratio}\n`);
  }
}
process.exit(run.code === 0 ? 0 : 1);
