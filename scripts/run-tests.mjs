#!/usr/bin/env node
// Runs every test tier (unit + namespace e2e) in one vitest run and ends with the plain line
// "N passed, N failed" that CI reads. Extra arguments are passed to vitest (e.g. --project unit).
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, existsSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const out = join(root, ".test-results.json");
rmSync(out, { force: true });

const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
const run = spawnSync(
  process.execPath,
  [vitest, "run", "--reporter=default", "--reporter=json", `--outputFile.json=${out}`, ...process.argv.slice(2)],
  { cwd: root, stdio: "inherit" },
);

let passed = 0;
let failed = 0;
if (existsSync(out)) {
  const report = JSON.parse(readFileSync(out, "utf8"));
  passed = report.numPassedTests ?? 0;
  failed = (report.numFailedTests ?? 0);
  // A file that fails to load has no tests to count: count it as one failure so it is never silent.
  for (const file of report.testResults ?? []) {
    if (file.status === "failed" && (file.assertionResults ?? []).every((t) => t.status !== "failed")) failed += 1;
  }
} else {
  failed = 1;
}
if (run.status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
