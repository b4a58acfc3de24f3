#!/usr/bin/env node
// Failover time through `routerd serve` + routerd-healthcheck: from the moment an uplink dies (its ISP drops
// everything) to the first new LAN connection that leaves through the other uplink. Median of --runs cycles,
// at a 1 s probe interval with unhealthyThreshold 2 and 3. Also reports the idle RSS of serve and the daemon.
// Run as root from the repository after a build: node bench/failover/run.mjs [--runs 5] [--serve-node-flags="FLAGS"]
// --serve-node-flags="...": node/V8 flags for serve, e.g. "--max-opt=4" (serve runs V8's interpreter alone by
// default: daemon-kit's v8-flags.ts) to compare failover time with the full JIT.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { TwoUplinks } from "../../test-e2e/lib/two-uplinks.mjs";

const { values } = parseArgs({ options: { runs: { type: "string", default: "5" }, "serve-node-flags": { type: "string", default: "" } } });
const SERVE_NODE_FLAGS = values["serve-node-flags"].split(/\s+/).filter(Boolean);
const RUNS = Number(values.runs);
const repo = new URL("../..", import.meta.url).pathname;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rssMiB = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024);

async function until(fn, timeoutMs, everyMs = 50) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await fn()) return true;
    await sleep(everyMs);
  }
  throw new Error("timed out");
}

async function scenario(unhealthyThreshold) {
  const t = new TwoUplinks();
  let serve;
  try {
    t.writeConfig({ interval: "1s", timeout: "500ms", unhealthyThreshold, healthyThreshold: 2, failbackDelay: "2s" });
    serve = spawn("ip", ["netns", "exec", t.router.name, process.execPath, ...SERVE_NODE_FLAGS, join(repo, "apps/routerd/bin/routerd.js"), "serve", "--config", t.config, "--state-dir", t.dirs.stateDir, "--run-dir", t.dirs.runDir, "--root", t.dirs.root, "--interval", "30s", "--stop-daemons-on-exit"], { stdio: "ignore" });
    await until(() => t.currentUplink("0.3") === 1, 30_000, 200);
    await sleep(3000); // idle a moment before reading memory
    const hcPid = JSON.parse(readFileSync(join(t.dirs.runDir, "healthcheck", "default.pid"), "utf8")).pid;
    const rss = { serve: rssMiB(serve.pid), healthcheck: rssMiB(hcPid) };
    const times = [];
    for (let i = 0; i < RUNS; i++) {
      t.cut(1);
      const start = performance.now();
      await until(() => t.currentUplink("0.2") === 2, 20_000, 20);
      times.push(Math.round(performance.now() - start));
      t.heal(1);
      await until(() => t.currentUplink("0.3") === 1, 30_000, 200);
    }
    return { unhealthyThreshold, intervalMs: 1000, failoverMs: { median: median(times), runs: times }, idleRssMiB: rss };
  } finally {
    if (serve) {
      serve.kill("SIGTERM");
      await new Promise((r) => serve.once("exit", r));
    }
    // The daemons outlive serve unless --stop-daemons-on-exit ran; make sure nothing is left.
    spawnSync("pkill", ["-KILL", "-f", t.dirs.runDir]);
    t.destroy();
  }
}

const results = [];
for (const threshold of [2, 3]) results.push(await scenario(threshold));
console.log(JSON.stringify({ date: new Date().toISOString(), loadavg: readFileSync("/proc/loadavg", "utf8").trim(), results }, null, 2));
for (const r of results) {
  console.log(`interval 1 s, unhealthyThreshold ${r.unhealthyThreshold}: failover median ${r.failoverMs.median} ms (runs ${r.failoverMs.runs.join(", ")}); idle RSS serve ${r.idleRssMiB.serve} MiB, healthcheck ${r.idleRssMiB.healthcheck} MiB`);
}
