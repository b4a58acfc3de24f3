#!/usr/bin/env node
// How long `npm run lab` takes on a built tree, to "all checks passed", and where the time goes.
// Usage (root): node bench/lab/run.mjs [--runs N] [--command npm|bash]
// Prints one JSON document on stdout (progress on stderr).
//
// Each run is a separate `npm run lab` (or `bash scripts/lab.sh` with --command bash) with its own
// ROUTERD_LAB_NAME and lab dir, timed from spawn to exit; every progress line the lab prints ("[ 7.0s] wan1
// leased ...") gives the time of that step, so the medians show which step costs what. Each lab is
// removed with `down` (timed too) in every outcome, also on SIGINT/SIGTERM. The baseline, measured in the
// same run, is what any Node.js program pays to start (`node -e 0`): on a loaded machine everything the lab
// does (serve, five daemons, routerctl, the probes) is a Node.js start-up or several.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const ROOT = new URL("../../", import.meta.url).pathname;
const { values } = parseArgs({ options: { runs: { type: "string", default: "5" }, command: { type: "string", default: "npm" } } });
const RUNS = Math.max(1, Number(values.runs));
const COMMAND = values.command === "bash" ? ["bash", [join(ROOT, "scripts/lab.sh")]] : ["npm", ["run", "--silent", "lab", "--"]];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round = (x) => Math.round(x * 100) / 100;
const stats = (xs) => ({ median: round(median(xs)), min: round(Math.min(...xs)), max: round(Math.max(...xs)) });

let current;
function down(lab) {
  const t0 = performance.now();
  spawnSync("bash", [join(ROOT, "scripts/lab.sh"), "down"], { env: lab.env, stdio: "ignore" });
  rmSync(lab.tmp, { recursive: true, force: true });
  return (performance.now() - t0) / 1000;
}
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    if (current) down(current);
    process.exit(130);
  });
}

function nodeStart() {
  const t0 = performance.now();
  execFileSync(process.execPath, ["-e", "0"]);
  return (performance.now() - t0) / 1000;
}

/** One `npm run lab`: wall time, whether every check passed, and the time of each progress step. */
function runOnce(i) {
  const tmp = mkdtempSync(join(tmpdir(), "rd-labbench-"));
  const lab = { tmp, env: { ...process.env, ROUTERD_LAB_NAME: `rdlb${randomBytes(3).toString("hex")}`, ROUTERD_LAB_DIR: join(tmp, "lab"), NO_COLOR: "1" } };
  current = lab;
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(COMMAND[0], [...COMMAND[1], "up"], { cwd: ROOT, env: lab.env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (b) => (out += b));
    child.stderr.on("data", (b) => (out += b));
    child.on("exit", (code) => {
      const wall = (performance.now() - t0) / 1000;
      const steps = {};
      for (const m of out.matchAll(/^\s+\[\s*([\d.]+)s\] ([^:\n]+)/gm)) steps[m[2].trim()] = Number(m[1]);
      for (const m of out.matchAll(/^==> (.+?) \(([\d.]+)s\)$/gm)) steps[`start: ${m[1].replace(/ in \S+$/, "").replace(/: namespaces .*/, "")}`] = Number(m[2]);
      const passed = /(\d+) passed, 0 failed/.exec(out);
      const downS = down(lab);
      current = undefined;
      process.stderr.write(`run ${i + 1}/${RUNS}: ${wall.toFixed(1)} s, ${passed ? `${passed[1]} checks passed` : "FAILED"}, down ${downS.toFixed(1)} s\n`);
      resolve({ wall, ok: code === 0 && Boolean(passed), steps, down: downS, output: code === 0 ? undefined : out });
    });
  });
}

const node = [];
const runs = [];
const load = [loadavg()[0]];
for (let i = 0; i < RUNS; i++) {
  node.push(nodeStart(), nodeStart(), nodeStart());
  runs.push(await runOnce(i));
  load.push(loadavg()[0]);
}
const ok = runs.filter((r) => r.ok);
const stepNames = [...new Set(ok.flatMap((r) => Object.keys(r.steps)))];
const report = {
  command: `${COMMAND[0]} ${COMMAND[1].join(" ")} up`,
  runs: RUNS,
  passed: ok.length,
  wallSeconds: ok.length ? stats(ok.map((r) => r.wall)) : null,
  downSeconds: stats(runs.map((r) => r.down)),
  baselineNodeStartSeconds: stats(node),
  loadAverage1m: stats(load),
  stepSeconds: Object.fromEntries(stepNames.map((s) => [s, stats(ok.map((r) => r.steps[s]).filter((x) => x !== undefined))]).sort((a, b) => a[1].median - b[1].median)),
  failures: runs.filter((r) => !r.ok).map((r) => r.output?.slice(-3000)),
};
process.stdout.write(JSON.stringify(report, null, 2) + "\n");
process.exit(ok.length === RUNS ? 0 : 1);
