// The host side of the full-kernel tier: bundle a scenario set for the guest, boot the lab VM once
// (scripts/kernel-lab/run.sh), let it run every scenario, and read back results.json.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, RolldownMagicString, type Plugin } from "rolldown";
import { RESULTS_FILE, type GuestReport } from "./scenarios.js";

export const REPO = fileURLToPath(new URL("../../..", import.meta.url));
export const RUNNER = join(REPO, "scripts/kernel-lab/run.sh");
const GUEST_MAIN = fileURLToPath(new URL("./guest.ts", import.meta.url));

// Spelled in parts: this file is itself bundled by bench/pppoe, and a literal would be rewritten too.
const META_URL = ["import", "meta", "url"].join(".");
/** Bundled code keeps each module's own import.meta.url, so paths computed from it (REPO, ...) still hold. */
const keepModuleUrls: Plugin = {
  name: "keep-module-urls",
  transform(code, id) {
    if (!code.includes(META_URL) || id.includes("\0")) return null;
    return { code: new RolldownMagicString(code).replaceAll(META_URL, JSON.stringify(pathToFileURL(id).href)) };
  },
};

/** One self-contained ESM file that runs the scenario module's set inside the guest. */
export async function bundleGuest(scenarioModule: string, outDir: string): Promise<string> {
  const entry = join(outDir, "entry.mjs");
  writeFileSync(
    entry,
    [
      `import set from ${JSON.stringify(scenarioModule)};`,
      `import { runGuest } from ${JSON.stringify(GUEST_MAIN)};`,
      `const code = await runGuest(set, ${JSON.stringify(outDir)});`,
      // Scenario leftovers (a child that ignored SIGTERM) must not keep the VM up: results are written.
      `process.exit(code);`,
    ].join("\n"),
  );
  await build({
    input: entry,
    platform: "node",
    logLevel: "warn",
    plugins: [keepModuleUrls],
    resolve: { conditionNames: ["source", "import", "node", "default"], extensionAlias: { ".js": [".ts", ".js"] } },
    output: { file: join(outDir, "guest.mjs"), format: "esm", comments: false, sourcemap: true },
  });
  return join(outDir, "guest.mjs");
}

export interface VmRun {
  /** run.sh's exit code: the guest program's (0 all passed, 1 some failed), 125 the VM failed. */
  code: number;
  output: string;
  wallMs: number;
  report?: GuestReport;
}

export interface BootOptions {
  /** Seconds before the VM is killed (run.sh's ROUTERD_KERNEL_LAB_TIMEOUT). */
  timeoutS: number;
}

/** Boots the VM once and runs every scenario of the module in it. Never throws: failures are in the result. */
export async function runScenariosInVm(scenarioModule: string, opts: BootOptions): Promise<VmRun> {
  const shared = mkdtempSync(join(tmpdir(), "routerd-klab-"));
  const started = Date.now();
  try {
    let guest: string;
    try {
      guest = await bundleGuest(scenarioModule, shared);
    } catch (err) {
      return { code: 125, output: `bundling ${scenarioModule} for the guest failed: ${String(err)}`, wallMs: Date.now() - started };
    }
    const script = join(shared, "run-guest.sh");
    // The guest's environment is the init's: pass on the developer's scenario filter explicitly.
    const only = process.env.ROUTERD_KERNEL_LAB_ONLY ? `ROUTERD_KERNEL_LAB_ONLY=${JSON.stringify(process.env.ROUTERD_KERNEL_LAB_ONLY)} ` : "";
    writeFileSync(script, `#!/bin/sh\n${only}exec ${process.execPath} --enable-source-maps ${guest}\n`, { mode: 0o755 });
    const { code, output } = await runVm(script, shared, opts.timeoutS);
    const resultsPath = join(shared, RESULTS_FILE);
    const report = existsSync(resultsPath) ? (JSON.parse(readFileSync(resultsPath, "utf8")) as GuestReport) : undefined;
    return { code, output, wallMs: Date.now() - started, ...(report ? { report } : {}) };
  } finally {
    rmSync(shared, { recursive: true, force: true });
  }
}

function runVm(script: string, shared: string, timeoutS: number): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const child = spawn(RUNNER, [script, shared], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ROUTERD_KERNEL_LAB_TIMEOUT: String(timeoutS) },
    });
    child.stdout.on("data", (b: Buffer) => {
      chunks.push(b);
      if (process.env.ROUTERD_KERNEL_LAB_VERBOSE) process.stderr.write(b);
    });
    child.stderr.on("data", (b: Buffer) => {
      chunks.push(b);
      if (process.env.ROUTERD_KERNEL_LAB_VERBOSE) process.stderr.write(b);
    });
    child.on("error", (err) => resolve({ code: 125, output: `cannot start ${RUNNER}: ${err.message}` }));
    child.on("close", (code) => resolve({ code: code ?? 125, output: Buffer.concat(chunks).toString("utf8") }));
  });
}
