#!/usr/bin/env node
// Memory of routerd-dns-resolver under fast churn, alone (no serve): dnsperf asks hundreds of questions a
// second for 20,000 names through a 200-entry cache (misses, evictions, forwarding to an upstream whose
// answers live 5 s), the config is reloaded (SIGHUP, cache size toggled) every few seconds and GetStatus
// is asked every 2 s. The daemon runs with bench/soak/memprobe.mjs: process.memoryUsage() before and after a
// forced full GC every 5 s; after-GC growth is memory the resolver keeps (a leak).
// Usage (root, after a build): node bench/dns/churn.mjs [--minutes 6] [--qps 500] [--reload-seconds 3] [--out DIR]
//   [--no-gc] [--env NAME=VALUE ...] [--node-flags "..."]
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO, askStatus, churnArgs, printReport, probeInto, sleep, watchSmaps } from "../soak/churn-kit.mjs";

const { values, minutes } = churnArgs({
  qps: { type: "string", default: "500" },
  "reload-seconds": { type: "string", default: "3" },
});
const reloadMs = Number(values["reload-seconds"]) * 1000;
const NS = `rd-dnschurn-${randomBytes(3).toString("hex")}`;
const RESOLVER = "127.0.0.2";
const UPSTREAM = "127.0.0.3";
const dir = mkdtempSync(join(tmpdir(), "rd-dnschurn-"));
const out = values.out ?? join(dir, "out");
mkdirSync(out, { recursive: true });
const sh = (...argv) => execFileSync(argv[0], argv.slice(1), { encoding: "utf8" });
const children = [];
const start = (argv, env = {}, log = "/dev/null") => {
  const fd = openSync(log, "a");
  const c = spawn("ip", ["netns", "exec", NS, ...argv], { stdio: ["ignore", fd, fd], env: { ...process.env, ...env } });
  closeSync(fd);
  children.push(c);
  return c;
};

const config = (maxEntries) => ({
  listen: [{ name: "bench", addresses: [RESOLVER], port: 53, sources: ["0.0.0.0/0"] }],
  cache: { maxEntries },
  zones: [{ name: "lan", zone: "lan.", ttl: 300, records: [{ name: "nas.lan.", type: "A", data: "10.10.0.10" }] }],
  forwarders: [{ name: "default", match: ["."], upstreams: ["up"], healthcheck: { intervalMs: 1000, timeoutMs: 500, failThreshold: 3, passThreshold: 1 } }],
  upstreams: [{ name: "up", protocol: "udp", address: UPSTREAM }],
});

sh("ip", "netns", "add", NS);
try {
  sh("ip", "-n", NS, "link", "set", "lo", "up");
  const configPath = join(dir, "resolver.json");
  writeFileSync(configPath, JSON.stringify(config(200)));
  const queries = join(dir, "queries.txt");
  writeFileSync(queries, Array.from({ length: 20_000 }, (_, i) => (i % 10 === 0 ? "nas.lan. A" : `h${i}.example. A`)).join("\n") + "\n");
  start([process.execPath, join(REPO, "bench/soak/dns-peers.mjs"), "upstream", UPSTREAM]);
  const runDir = join(dir, "run");
  const probe = probeInto(values, out);
  const resolver = start(
    [process.execPath, "--max-semi-space-size=2", ...probe.nodeArgs, join(REPO, "apps/routerd-dns-resolver/bin/routerd-dns-resolver.js"),
      "--config", configPath, "--instance", "bench", "--run-dir", runDir, "--state-dir", join(dir, "state"), "--log-level", "warn"],
    probe.env,
    join(out, "resolver.log"),
  );
  const smaps = watchSmaps(resolver.pid, out);
  resolver.once("exit", (code, signal) => process.stderr.write(`resolver exited: ${code ?? signal}\n`));
  // Up (and its SIGHUP handler installed) once it answers GetStatus.
  while (!(await askStatus(runDir, "dns-resolver", "bench", { connectTimeoutMs: 1000, callTimeoutMs: 2000 }))) {
    if (resolver.exitCode !== null || resolver.signalCode !== null) throw new Error("routerd-dns-resolver did not start");
    await sleep(200);
  }
  const perf = spawn("ip", ["netns", "exec", NS, "dnsperf", "-s", RESOLVER, "-d", queries, "-l", String(minutes * 60), "-Q", values.qps, "-c", "4", "-t", "2"], { stdio: ["ignore", "pipe", "ignore"] });
  children.push(perf);
  let perfOut = "";
  perf.stdout.on("data", (b) => (perfOut += b));
  const done = new Promise((r) => perf.once("exit", r));
  let reloads = 0;
  let statusCalls = 0;
  let finished = false;
  done.then(() => (finished = true));
  let nextReload = Date.now() + reloadMs;
  while (!finished) {
    if (resolver.exitCode !== null || resolver.signalCode !== null) throw new Error(`routerd-dns-resolver exited; see ${join(out, "resolver.log")}`);
    if (Date.now() >= nextReload) {
      writeFileSync(configPath, JSON.stringify(config(reloads % 2 ? 200 : 201)));
      process.kill(resolver.pid, "SIGHUP");
      reloads++;
      nextReload = Date.now() + reloadMs;
    }
    if (await askStatus(runDir, "dns-resolver", "bench")) statusCalls++;
    await Promise.race([sleep(2000), done]);
  }
  const completed = /Queries completed:\s+(\d+)/.exec(perfOut)?.[1];
  printReport({ minutes, queriesCompleted: Number(completed), reloads, statusCalls }, probe.file, smaps);
} finally {
  for (const c of children) {
    try {
      c.kill("SIGKILL");
    } catch {}
  }
  try {
    for (const pid of sh("ip", "netns", "pids", NS).split("\n").filter(Boolean)) process.kill(Number(pid), "SIGKILL");
  } catch {}
  sh("ip", "netns", "del", NS);
  rmSync(dir, { recursive: true, force: true });
}
