// The guest side of the full-kernel tier: runs one scenario set in order inside the VM and writes
// results.json into the shared directory after every scenario, so a VM that dies half-way still reports
// what finished. Entry point of the bundle that vm.ts builds; never imported by the host's tests.
import { readFileSync, writeFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { chosenScenarios, RESULTS_FILE, type GuestReport, type ScenarioSet } from "./scenarios.js";

function timeout(ms: number, name: string): { promise: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`scenario "${name}" did not finish within ${ms} ms`)), ms);
  });
  return { promise, clear: () => clearTimeout(timer) };
}

function describeError(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return String(err);
}

export async function runGuest(set: ScenarioSet, sharedDir: string): Promise<number> {
  const report: GuestReport = { uptimeAtStart: Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]), results: {} };
  const save = (): void => {
    const path = join(sharedDir, RESULTS_FILE);
    writeFileSync(`${path}.tmp`, JSON.stringify(report, null, 2));
    renameSync(`${path}.tmp`, path);
  };
  save();
  let failed = 0;
  for (const scenario of chosenScenarios(set)) {
    const log: string[] = [];
    const started = Date.now();
    process.stdout.write(`=== ${scenario.name}\n`);
    const limit = timeout(scenario.timeoutMs, scenario.name);
    try {
      await Promise.race([scenario.run({ log: (line) => log.push(line) }), limit.promise]);
      report.results[scenario.name] = { ok: true, ms: Date.now() - started, log };
    } catch (err) {
      failed += 1;
      report.results[scenario.name] = { ok: false, ms: Date.now() - started, error: describeError(err), log };
    } finally {
      limit.clear();
    }
    const r = report.results[scenario.name]!;
    process.stdout.write(`--- ${r.ok ? "ok" : "FAIL"} ${scenario.name} (${r.ms} ms)${r.error ? `\n${r.error}` : ""}\n`);
    save();
  }
  return failed === 0 ? 0 : 1;
}
