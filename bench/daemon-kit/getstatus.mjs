#!/usr/bin/env node
// GetStatus round-trip over the daemon's Unix socket, using the built dist/ of @routerd/daemon-kit's
// example daemon and @routerd/rpc's client. Build first: npx turbo run build --filter=@routerd/daemon-kit
// Usage: node bench/daemon-kit/getstatus.mjs [--calls 2000] [--runs 5] [--warmup 500]
// Prints one JSON summary: p50/p99 per run and the median over runs (microseconds), plus daemon RSS.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { parseArgs } from "node:util";

const repo = new URL("../..", import.meta.url).pathname;
const echoBin = join(repo, "packages/daemon-kit/dist/testing/echo-daemon.js");
const rpcDist = join(repo, "packages/rpc/dist/index.js");
for (const f of [echoBin, rpcDist]) {
  if (!existsSync(f)) {
    process.stderr.write(`missing ${f}: run npx turbo run build --filter=@routerd/daemon-kit\n`);
    process.exit(2);
  }
}
const { connectDaemon, diagnoseSocket } = await import(rpcDist);

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "2000" },
    runs: { type: "string", default: "5" },
    warmup: { type: "string", default: "500" },
  },
});
const calls = Number(values.calls);
const runs = Number(values.runs);
const warmup = Number(values.warmup);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rssKiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x) => Math.round(x * 10) / 10;

const root = mkdtempSync(join(tmpdir(), "rd-bench-"));
const socketPath = join(root, "run", "echo", "bench.sock");
const daemon = spawn(process.execPath, [echoBin, "--instance", "bench", "--run-dir", join(root, "run"), "--state-dir", join(root, "state")], {
  env: { ...process.env, ROUTERD_LOG_LEVEL: "warn" },
  stdio: ["ignore", "ignore", "inherit"],
});

try {
  const deadline = Date.now() + 15_000;
  while ((await diagnoseSocket(socketPath)) !== undefined) {
    if (Date.now() > deadline || daemon.exitCode !== null) throw new Error("echo daemon did not start");
    await sleep(20);
  }
  const client = await connectDaemon(socketPath);
  // A realistic status: a few resources with conditions.
  for (const name of ["wan", "lan", "dmz"]) {
    await client.command("resource", { name, phase: "Bound", condition: "Ready", status: "True", reason: "Bench" });
  }
  await sleep(1_000);
  const rssIdleKiB = rssKiB(daemon.pid);

  for (let i = 0; i < warmup; i++) await client.getStatus();
  const perRun = [];
  for (let r = 0; r < runs; r++) {
    const samples = new Float64Array(calls);
    for (let i = 0; i < calls; i++) {
      const t0 = process.hrtime.bigint();
      await client.getStatus();
      samples[i] = Number(process.hrtime.bigint() - t0) / 1_000;
    }
    samples.sort();
    perRun.push({ p50Us: round(percentile(samples, 50)), p99Us: round(percentile(samples, 99)) });
  }
  await sleep(1_000);
  const rssAfterKiB = rssKiB(daemon.pid);
  client.close();

  const p50Us = median(perRun.map((r) => r.p50Us));
  console.log(
    JSON.stringify(
      {
        bench: "daemon-kit GetStatus over Unix socket",
        node: process.version,
        calls,
        runs,
        warmup,
        p50Us,
        p99Us: median(perRun.map((r) => r.p99Us)),
        targetP50Us: 1000,
        p50UnderTarget: p50Us < 1000,
        perRun,
        daemonRssIdleKiB: rssIdleKiB,
        daemonRssAfterLoadKiB: rssAfterKiB,
      },
      null,
      2,
    ),
  );
} finally {
  if (daemon.exitCode === null) {
    daemon.kill("SIGTERM");
    await once(daemon, "exit");
  }
  rmSync(root, { recursive: true, force: true });
}
