#!/usr/bin/env node
// Soak benchmark: `routerd serve` and its daemons under ordinary churn for N minutes, sampling the memory
// and open fds of every process, then the slope of each after the warm-up (MB/hour) and a plot.
//
// Churn (all at once, for the whole run): a DHCPv4 WAN leased from kea-dhcp4 (20 s leases, renewal every
// 8 s); DHCPv6-PD from kea-dhcp6 (renewal every 10 s); a TCP health check every second whose target
// disappears for 30 s and returns for 30 s (refused and dropped in turn), so an EgressRoutePolicy fails
// over to the second uplink and back; the config file rewritten every 20 s (one IPv4Route of seven changes);
// `routerctl status --json` every 10 s; routerd-bgp peering with a gobgpd that announces or withdraws 20
// prefixes every 30 s and resets the session every 5 minutes; a LAN client asking routerd-dns-resolver 10
// questions a second (1,000 names through a 200-entry cache, forwarded to the ISP's resolver).
//
// Run as root after a build (npx turbo run build):
//   node bench/soak/run.mjs --minutes 40                 # the target run: 10 min warm-up + 30 min measured
//   node bench/soak/run.mjs --minutes 3 --warmup 1 --sample-seconds 10   # a quick look
//   options: --warmup MIN (default 10, or a quarter of --minutes below 20), --sample-seconds S (default 20),
//            --out DIR (new or empty; default /tmp/routerd-soak-<time>-<pid>), --heap-snapshots (at --snapshot-at MIN, default 2,
//            and at the end, with --heapsnapshot-signal; compare them with heap-diff.mjs or in Chrome
//            DevTools' Memory tab). Writing a snapshot doubles a process's RSS for a while: RSS slopes of such
//            a run mean nothing; measure them in a run without snapshots.
//            --serve-node-flags "FLAGS": node/V8 flags for serve only (e.g. "--max-opt=4" to compare with the full JIT).
//            --live-heap: serve and every daemon load memprobe.mjs (through NODE_OPTIONS), which forces a full
//            GC once a minute and records the memory still in use after it; the report then also gives the
//            slope of that live memory (heap + external), the figure a leak grows whatever the load and
//            whenever V8 collects. RSS slopes of such a run are those of processes collected every minute.
//            --code-probe: serve loads codeprobe.mjs, which writes <out>/codeprobe.jsonl every 30 s (V8 code and
//            bytecode sizes, code spaces, CPU time, code built at run time and where); add
//            "--serve-node-flags=--trace-opt --trace-deopt" and read serve.log with jit-trace.mjs for the optimizer.
//            --env NAME=VALUE (repeatable): an environment variable for serve and the daemons it starts, e.g.
//            MALLOC_TRIM_THRESHOLD_=131072; SOAK_V8_FLAGS="FLAGS" (every process) or SOAK_V8_FLAGS_<PROGRAM>
//            (SOAK_V8_FLAGS_ROUTERD_DNS_RESOLVER, ...) sets V8 flags on the processes through v8flags.mjs.
//            Every sample also records each process's CPU time; window.mjs gives the figures over any window.
//            --help: this text.
// Writes into the run dir: samples.jsonl, report.json, report.txt, memory.svg, serve.log, kea and daemon logs.
// Everything it creates (namespaces rdsoak-<id>-*, processes) is removed at the end, also on Ctrl-C.
import { execFile, spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, openSync, closeSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { benchArgs } from "./args.mjs";
import { LAN_ADDRESS, writeConfig } from "./config.mjs";
import { SoakLab, missingPackages, stopProcess } from "./lab.mjs";
import { liveSummary, summarize, svgReport, textReport } from "./report.mjs";
import { sample } from "./sampler.mjs";

const options = {
  minutes: { type: "string", default: "40" },
  warmup: { type: "string" },
  "sample-seconds": { type: "string", default: "20" },
  out: { type: "string" },
  "heap-snapshots": { type: "boolean", default: false },
  "snapshot-at": { type: "string", default: "2" },
  "serve-node-flags": { type: "string", default: "" },
  "live-heap": { type: "boolean", default: false },
  "code-probe": { type: "boolean", default: false },
  env: { type: "string", multiple: true, default: [] },
};
const values = benchArgs(options, new URL(import.meta.url).pathname);
const minutes = Number(values.minutes);
const warmupMin = values.warmup !== undefined ? Number(values.warmup) : minutes >= 20 ? 10 : minutes / 4;
const sampleMs = Number(values["sample-seconds"]) * 1000;
if (!(minutes > 0) || !(warmupMin >= 0) || warmupMin >= minutes || !(sampleMs >= 1000)) {
  process.stderr.write("usage: run.mjs [--minutes N] [--warmup M < N] [--sample-seconds S >= 1] [--out DIR] [--heap-snapshots [--snapshot-at MIN]] [--serve-node-flags 'FLAGS'] [--live-heap] [--code-probe] [--help]\n");
  process.exit(2);
}

const repo = new URL("../..", import.meta.url).pathname;
const { PROGRAM_ENVIRONMENT } = await import(join(repo, "packages/render/dist/index.js"));
const ROUTERD = join(repo, "apps/routerd/bin/routerd.js");
const ROUTERCTL = join(repo, "apps/routerctl/bin/routerctl.js");
for (const f of ["apps/routerd/dist/main.js", "apps/routerctl/dist/main.js", "packages/rpc/dist/index.js", "apps/routerd-dhcpv4-client/dist/main.js", "apps/routerd-dhcpv6-client/dist/main.js", "apps/routerd-healthcheck/dist/main.js"]) {
  if (!existsSync(join(repo, f))) {
    process.stderr.write(`missing ${f}: run npx turbo run build first\n`);
    process.exit(2);
  }
}
if (process.getuid?.() !== 0) {
  process.stderr.write("run.mjs needs root (network namespaces)\n");
  process.exit(2);
}
const missing = missingPackages();
if (missing.length) {
  process.stderr.write(`run.mjs needs programs this machine lacks: apt-get install ${missing.join(" ")}\n`);
  process.exit(2);
}

const out = values.out !== undefined ? resolve(values.out) : join("/tmp", `routerd-soak-${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}`);
// Two runs must never share a run dir: its state dir names the processes cleanup kills, and the samples
// of one would mix with the other's. (Namespaces carry a random id per run: those cannot collide.)
if (existsSync(out) && readdirSync(out).length) {
  process.stderr.write(`${out} is not empty (another run's dir?): give a new --out\n`);
  process.exit(2);
}
const dirs = { state: join(out, "state"), run: join(out, "run"), root: join(out, "root") };
const configPath = join(out, "router.yaml");
const samplesPath = join(out, "samples.jsonl");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (msg) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

mkdirSync(out, { recursive: true });
const lab = new SoakLab(out);
let serve;
const timers = [];
const counters = { targetToggles: 0, statusCalls: 0, statusFailures: 0, statusTimeouts: 0, bgpChanges: 0 };

// A path inside one of them, or the dir itself as a whole argument (cmdline separates arguments with NUL).
const ownedPaths = [dirs.state, dirs.run].flatMap((d) => [`${d}/`, `${d}\0`]);

async function cleanup() {
  for (const t of timers) clearInterval(t);
  await stopProcess(serve, 20_000); // --stop-daemons-on-exit: serve stops its daemons
  // Anything still running from the run's state or run dir (a daemon serve could not stop, a companion such
  // as routerd-bgp's gobgpd, whose command line names only the run dir) is killed by pid; a shell that
  // started this bench (`--out DIR`) or follows its serve.log is not one of them.
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (ownedPaths.some((p) => cmdline.includes(p))) process.kill(Number(entry), "SIGKILL");
    } catch {
      /* gone */
    }
  }
  await lab.destroy();
}

let stopping = false;
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    log(`${sig}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

function startServe() {
  // As routerd.service starts serve (its daemons get the same from serve's supervisor).
  const env = { ...PROGRAM_ENVIRONMENT, ...process.env };
  for (const kv of values.env) {
    const eq = kv.indexOf("=");
    if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  if (Object.keys(env).some((k) => k.startsWith("SOAK_V8_FLAGS"))) env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ""} --import=${join(repo, "bench/soak/v8flags.mjs")}`.trim();
  if (values["heap-snapshots"]) {
    mkdirSync(join(out, "heap"), { recursive: true });
    env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ""} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${join(out, "heap")}`.trim();
  }
  if (values["live-heap"]) {
    env.MEMPROBE_DIR = join(out, "memprobe");
    env.MEMPROBE_MS = "60000";
    mkdirSync(env.MEMPROBE_DIR, { recursive: true });
    env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ""} --import=${join(repo, "bench/soak/memprobe.mjs")}`.trim();
  }
  const probe = values["code-probe"] ? [`--import=${join(repo, "bench/soak/codeprobe.mjs")}`] : [];
  if (values["code-probe"]) env.CODEPROBE_OUT = join(out, "codeprobe.jsonl");
  const fd = openSync(join(out, "serve.log"), "a");
  const argv = ["netns", "exec", lab.router, process.execPath, ...probe, ...values["serve-node-flags"].split(" ").filter(Boolean), ROUTERD, "serve", "--config", configPath, "--state-dir", dirs.state, "--run-dir", dirs.run, "--root", dirs.root, "--interval", "30s", "--stop-daemons-on-exit"];
  serve = spawn("ip", argv, { stdio: ["ignore", fd, fd], env });
  closeSync(fd);
}

/** SIGUSR2 to serve and every daemon: each writes a .heapsnapshot into <out>/heap. */
async function heapSnapshots(label) {
  const pids = (await sample(dirs.run, serve.pid, 0)).filter((r) => !r.missing).map((r) => r.pid);
  for (const pid of pids) process.kill(pid, "SIGUSR2");
  log(`heap snapshots (${label}) requested from ${pids.length} processes`);
  await sleep(5000);
}

const run = promisify(execFile);
async function statusCall() {
  counters.statusCalls++;
  try {
    const r = await run("ip", ["netns", "exec", lab.router, process.execPath, ROUTERCTL, "status", "--json", "--run-dir", dirs.run], { timeout: 20_000 });
    JSON.parse(r.stdout);
  } catch (err) {
    // A loaded machine can take seconds to start node; a timeout is counted apart from a failed answer.
    if (err.killed) counters.statusTimeouts++;
    else counters.statusFailures++;
  }
}

let generation = 0;
let targetCycle = 0;
async function toggleTarget() {
  counters.targetToggles++;
  if (lab.down) lab.targetUp();
  else await lab.targetDown(targetCycle++ % 2 === 0 ? "refuse" : "drop");
}

/** Every 30 s the peer's prefixes come or go; every tenth time the session is reset instead. */
let bgpBusy = false;
async function bgpChurn() {
  if (bgpBusy) return; // the previous change is still being made (a loaded machine)
  bgpBusy = true;
  try {
    if (++counters.bgpChanges % 10 === 0) await lab.bgpReset();
    else await lab.bgpToggle();
  } catch (err) {
    log(`bgp churn: ${err.message}`);
  } finally {
    bgpBusy = false;
  }
}

/** Topic counts from each process's events.jsonl (and rotated files): proof that the churn happened. */
function eventCounts() {
  const counts = {};
  const walk = (dir, name) => {
    for (const f of readdirSync(dir).filter((x) => x.startsWith("events.jsonl"))) {
      for (const line of readFileSync(join(dir, f), "utf8").split("\n")) {
        const topic = /"topic":"([^"]+)"/.exec(line)?.[1];
        if (!topic) continue;
        counts[name] ??= {};
        counts[name][topic] = (counts[name][topic] ?? 0) + 1;
      }
    }
  };
  for (const daemon of existsSync(dirs.state) ? readdirSync(dirs.state, { withFileTypes: true }).filter((d) => d.isDirectory()) : []) {
    for (const instance of readdirSync(join(dirs.state, daemon.name), { withFileTypes: true }).filter((d) => d.isDirectory())) {
      walk(join(dirs.state, daemon.name, instance.name), `${daemon.name}/${instance.name}`);
    }
  }
  return counts;
}

/** The memprobe rows of every sampled process (--live-heap), on the samples' time axis. */
function liveRows(t0) {
  const dir = join(out, "memprobe");
  const names = new Map(samples.map((r) => [r.pid, r.name]));
  const rows = [];
  for (const [pid, name] of names) {
    const file = join(dir, `${pid}.jsonl`);
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
      const m = JSON.parse(line);
      rows.push({ name, pid, t: Math.round((m.at - t0) / 1000), heapUsed: m.heapUsed, external: m.external, rss: m.rss });
    }
  }
  return rows;
}

const samples = [];
let t0 = Date.now();
try {
  await lab.startKea();
  lab.startTarget();
  await lab.startBgpPeer();
  lab.startDns(LAN_ADDRESS);
  writeConfig(configPath, generation);
  startServe();
  t0 = Date.now();
  log(`soak ${minutes} min (warm-up ${warmupMin} min, a sample every ${sampleMs / 1000} s) in ${out}; namespaces rdsoak-${lab.id}-*`);
  timers.push(setInterval(() => writeConfig(configPath, ++generation), 20_000));
  timers.push(setInterval(() => void toggleTarget(), 30_000));
  timers.push(setInterval(() => void statusCall(), 10_000));
  timers.push(setInterval(() => void bgpChurn(), 30_000));
  let snapshotTaken = !values["heap-snapshots"];
  for (let next = t0 + sampleMs; next < t0 + minutes * 60_000 + 1; next += sampleMs) {
    await sleep(Math.max(0, next - Date.now()));
    if (stopping) break;
    const t = Math.round((Date.now() - t0) / 1000);
    if (serve.exitCode !== null) throw new Error(`routerd serve exited (${serve.exitCode}); see ${out}/serve.log`);
    const rows = await sample(dirs.run, serve.pid, t);
    samples.push(...rows);
    appendFileSync(samplesPath, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    log(rows.map((r) => (r.missing ? `${r.name} -` : `${r.name} ${(r.rss / 1e6).toFixed(1)}MB/${r.heapUsed ? (r.heapUsed / 1e6).toFixed(1) : "?"}MB/${r.fds}fd`)).join("  "));
    if (!snapshotTaken && t >= Number(values["snapshot-at"]) * 60) {
      snapshotTaken = true;
      await heapSnapshots("start");
    }
  }
  for (const t of timers) clearInterval(t);
  if (values["heap-snapshots"] && !stopping) await heapSnapshots("end");
} finally {
  if (!stopping) await cleanup();
}

const warmupSeconds = warmupMin * 60;
const summary = summarize(samples, warmupSeconds);
const report = {
  date: new Date().toISOString(),
  loadavg: readFileSync("/proc/loadavg", "utf8").trim(),
  node: process.version,
  minutes,
  warmupMinutes: warmupMin,
  sampleSeconds: sampleMs / 1000,
  churn: { ...counters, configGenerations: generation, events: eventCounts() },
  processes: summary,
  ...(values["live-heap"] ? { live: liveSummary(liveRows(t0), warmupSeconds) } : {}),
};
writeFileSync(join(out, "report.json"), JSON.stringify(report, null, 2) + "\n");
writeFileSync(join(out, "memory.svg"), svgReport(samples, summary, warmupSeconds));
const text = textReport(summary, { warmupSeconds, live: report.live });
writeFileSync(join(out, "report.txt"), text + "\n");
process.stdout.write(`\n${text}\n\nchurn: ${JSON.stringify(report.churn)}\nrun dir: ${out} (samples.jsonl, report.json, memory.svg)\n`);
