#!/usr/bin/env node
// DNS resolver throughput and latency: routerd-dns-resolver against dnsmasq and unbound (one thread), in the
// same run, with the same query files. dnsperf runs in a "client" namespace, the servers in a "server"
// namespace, each server pinned to CPU 0 with taskset; dnsperf and the upstream unbound (authoritative for
// the forwarded test zones) share CPU 1.
//
// Measures (median of --runs, servers interleaved so drift hits all alike):
//   hit      cache-hit qps: 1,000 forwarded names, answered once before, then dnsperf -c 4 -q 200
//   local    local-zone qps: 1,000 names of a local zone (ours: DNSZone records; dnsmasq: address=; unbound: local-data)
//   miss     miss-path qps: every name new, forwarded to the upstream unbound
//   latency  p50/p99 of cache hits at half of routerd-dns-resolver's own hit qps (dnsperf -Q, per-query latencies)
//   rss      resident memory 30 s after 100,000 distinct names were answered (and cached)
//   cpu      the server's CPU time (user + system, all threads) per answered query: on a machine with other
//            load, qps depends on how much of CPU 0 the scheduler gives the server; CPU per query does not.
//            "user" is the part outside the kernel (system time is mostly the UDP/veth path every server pays).
// Servers: ours (UDP through the native recvmmsg/sendmmsg helper when built), dgram (the same build forced onto
// node:dgram with ROUTERD_DNS_UDP=dgram: the fallback, and the before of the native helper), dnsmasq, unbound; floor (a Node process that only echoes each query: what Node's UDP path
// costs per answer before any DNS work); base (another routerd-dns-resolver build, --base-resolver).
// Usage (root): node bench/dns/run.mjs [--runs 3] [--seconds 8] [--servers ours,dgram,dnsmasq,unbound]
//                 [--phases hit,local,miss,latency,rss] [--cpu-prof DIR] [--base-resolver LAUNCHER (server "base")]
//                 [--rt (latency phase at real-time priority)] [--gc (our collections during the latency phase)]
//                 [--latency-qps N (instead of half our hit qps)] [--node-flags "..." (V8 flags for ours)]
// Prints one JSON document on stdout and a Markdown table on stderr.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const ROOT = new URL("../../", import.meta.url).pathname;
const RESOLVER = join(ROOT, "apps/routerd-dns-resolver/bin/routerd-dns-resolver.js");
const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "3" },
    seconds: { type: "string", default: "8" },
    servers: { type: "string", default: "ours,dgram,dnsmasq,unbound" },
    // A directory for V8 CPU profiles of routerd-dns-resolver (one per start), to see where its time goes.
    "cpu-prof": { type: "string" },
    // Which measurements to take (all by default): hit,local,miss,latency,rss.
    phases: { type: "string", default: "hit,local,miss,latency,rss" },
    // Extra node flags for routerd-dns-resolver (space-separated, e.g. "--trace-gc"); its output goes to --server-log.
    "node-flags": { type: "string", default: "" },
    "server-log": { type: "string" },
    // A launcher of another routerd-dns-resolver build (server "base"), e.g. a copy of main's dist:
    //   cp -r apps/routerd-dns-resolver/dist apps/routerd-dns-resolver/dist-base   (before the change)
    //   --servers ours,base --base-resolver apps/routerd-dns-resolver/dist-base/bundle/routerd-dns-resolver.mjs
    "base-resolver": { type: "string" },
    // Latency phase: every server (all its threads) and dnsperf at real-time priority (SCHED_FIFO) on their
    // pinned CPUs, so other processes on the machine cannot preempt them; the kernel's RT throttling still
    // leaves 5 % of each second to everything else. Measures the servers' own tails on a machine that is not idle.
    rt: { type: "boolean", default: false },
    // For routerd-dns-resolver (ours, dgram, base): V8's --trace-gc during the latency phase: young (scavenge)
    // and full (mark-compact) collections, their count and pauses.
    gc: { type: "boolean", default: false },
    // The latency phase's rate (qps) instead of half of our measured cache-hit qps (to compare runs).
    "latency-qps": { type: "string" },
  },
});
const RUNS = Math.max(1, Number(values.runs));
const SECONDS = Math.max(2, Number(values.seconds));
const SERVERS = values.servers.split(",");
const PHASES = new Set(values.phases.split(","));
const RT_PRIORITY = "50";
const OURS = ["ours", "base", "dgram"];

const id = randomBytes(3).toString("hex");
const CLI = `rd-dnsbench-${id}-cli`;
const SRV = `rd-dnsbench-${id}-srv`;
const dir = mkdtempSync(join(tmpdir(), "rd-dnsbench-"));
const children = new Set();
const ADDR = { ours: "10.61.0.11", dnsmasq: "10.61.0.12", unbound: "10.61.0.13", upstream: "10.61.0.14", base: "10.61.0.15", floor: "10.61.0.16", dgram: "10.61.0.17" };
const LOCAL_NAMES = 1000;
const HIT_NAMES = 1000;
const RSS_NAMES = 100_000;
/**
 * RSS is read 1 s after the fill and again this long after it (the cache at rest: the fill's garbage
 * collected). Our memory settle looks every 5 s and collects once a 5 s window was quiet: 10-15 s after a
 * fill, later on a loaded machine (one run at load 17 had not collected yet at 20 s).
 */
const RSS_SETTLE_S = 30;

const sh = (...argv) => execFileSync(argv[0], argv.slice(1), { encoding: "utf8", maxBuffer: 1 << 30 });
const p = (f) => join(dir, f);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const percentile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function start(ns, argv) {
  const child = spawn("ip", ["netns", "exec", ns, ...argv], { stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  child.once("exit", () => children.delete(child));
  let log = "";
  child.stdout.on("data", (b) => (log += b));
  child.stderr.on("data", (b) => (log += b));
  child.log = () => log;
  return child;
}

function setup() {
  sh("ip", "netns", "add", CLI);
  sh("ip", "netns", "add", SRV);
  for (const ns of [CLI, SRV]) sh("ip", "-n", ns, "link", "set", "lo", "up");
  sh("ip", "link", "add", "cli0", "netns", CLI, "type", "veth", "peer", "name", "srv0", "netns", SRV);
  sh("ip", "-n", CLI, "addr", "add", "10.61.0.2/24", "dev", "cli0");
  for (const a of Object.values(ADDR)) sh("ip", "-n", SRV, "addr", "add", `${a}/24`, "dev", "srv0");
  sh("ip", "-n", CLI, "link", "set", "cli0", "up");
  sh("ip", "-n", SRV, "link", "set", "srv0", "up");

  // The upstream: authoritative for the forwarded names (wildcards answer any name under them).
  writeFileSync(
    p("upstream.zone"),
    ["$ORIGIN bench.test.", "$TTL 3600", "@ IN SOA ns admin 1 3600 600 86400 300", "@ IN NS ns", `ns IN A ${ADDR.upstream}`, "*.hit IN A 198.51.100.1", "*.miss IN A 198.51.100.2", "*.fill IN A 198.51.100.3", ""].join("\n"),
  );
  writeFileSync(p("upstream.conf"), unboundConf(ADDR.upstream, [], ["auth-zone:", '  name: "bench.test."', `  zonefile: "${p("upstream.zone")}"`, "  for-downstream: yes", "  for-upstream: no"]));

  const local = Array.from({ length: LOCAL_NAMES }, (_, i) => ({ name: `host${i}.lan.`, ip: `10.${100 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}` }));
  writeFileSync(p("local.q"), local.map((l) => `${l.name} A`).join("\n") + "\n");
  writeFileSync(p("hit.q"), Array.from({ length: HIT_NAMES }, (_, i) => `h${i}.hit.bench.test. A`).join("\n") + "\n");

  // routerd-dns-resolver: the local zone as DNSZone records, forwarding to the upstream, a 150k cache.
  for (const kind of ["ours", "base", "dgram"]) writeFileSync(
    p(`${kind}.json`),
    JSON.stringify({
      listen: [{ name: "bench", addresses: [ADDR[kind]], port: 53, sources: ["0.0.0.0/0"] }],
      cache: { maxEntries: 150_000 },
      zones: [{ name: "lan", zone: "lan.", ttl: 300, records: local.map((l) => ({ name: l.name, type: "A", data: l.ip })) }],
      forwarders: [{ name: "default", match: ["."], upstreams: ["up"], healthcheck: { intervalMs: 5000, timeoutMs: 1000, failThreshold: 3, passThreshold: 1 } }],
      upstreams: [{ name: "up", protocol: "udp", address: ADDR.upstream }],
    }),
  );
  // dnsmasq: address= for local answers, a big cache for forwarded ones.
  writeFileSync(
    p("dnsmasq.conf"),
    [`listen-address=${ADDR.dnsmasq}`, "bind-interfaces", "port=53", "no-resolv", "no-hosts", `server=${ADDR.upstream}`, "cache-size=150000", "local-ttl=300", ...local.map((l) => `address=/${l.name.slice(0, -1)}/${l.ip}`), ""].join("\n"),
  );
  // unbound, one thread: local-data for local answers, forwarding to the upstream.
  writeFileSync(
    p("unbound.conf"),
    unboundConf(
      ADDR.unbound,
      ['  local-zone: "lan." static', ...local.map((l) => `  local-data: "${l.name} 300 IN A ${l.ip}"`), "  msg-cache-size: 128m", "  rrset-cache-size: 256m"],
      ["forward-zone:", '  name: "."', `  forward-addr: ${ADDR.upstream}`],
    ),
  );
}

/** unbound, one thread, in the foreground; `server` lines go in its server: section, `sections` after it. */
function unboundConf(address, server, sections = []) {
  return [
    "server:",
    '  username: ""',
    '  chroot: ""',
    `  directory: "${dir}"`,
    '  pidfile: ""',
    "  use-syslog: no",
    '  logfile: ""',
    "  verbosity: 0",
    "  num-threads: 1",
    `  interface: ${address}`,
    "  access-control: 0.0.0.0/0 allow",
    '  module-config: "iterator"',
    '  local-zone: "test." nodefault',
    "  do-not-query-localhost: no",
    ...server,
    ...sections,
    "remote-control:",
    "  control-enable: no",
    "",
  ].join("\n");
}

const SERVER_ARGV = {
  ours: () => resolverArgv("ours", RESOLVER),
  // The same build on node:dgram (what FreeBSD, or a build without a C compiler, runs).
  dgram: () => ["env", "ROUTERD_DNS_UDP=dgram", ...resolverArgv("dgram", RESOLVER)],
  // Another build of routerd-dns-resolver (--base-resolver), for before/after comparisons in the same run.
  base: () => resolverArgv("base", values["base-resolver"]),
  // Node's own UDP cost: a server that only echoes (node-floor.mjs), same flags and pinning as ours.
  floor: () => ["taskset", "-c", "0", process.execPath, "--max-semi-space-size=2", join(ROOT, "bench/dns/node-floor.mjs"), ADDR.floor],
  dnsmasq: () => ["taskset", "-c", "0", "dnsmasq", "--keep-in-foreground", `--conf-file=${p("dnsmasq.conf")}`, "--pid-file="],
  unbound: () => ["taskset", "-c", "0", "unbound", "-d", "-c", p("unbound.conf")],
};

function resolverArgv(kind, launcher) {
  const flags = [...values["node-flags"].split(" ").filter(Boolean), ...(values.gc ? ["--trace-gc"] : [])];
  const prof = values["cpu-prof"] ? ["--cpu-prof", "--cpu-prof-dir", values["cpu-prof"]] : [];
  // V8 prints its GC trace through C stdio, fully buffered into a pipe: line buffering shows it as it happens.
  const lineBuffered = values.gc ? ["stdbuf", "-oL"] : [];
  return [...lineBuffered, "taskset", "-c", "0", process.execPath, "--max-semi-space-size=2", ...flags, ...prof, launcher, "--config", p(`${kind}.json`), "--instance", kind, "--run-dir", p("run"), "--state-dir", p("state"), "--log-level", "error"];
}

async function waitAnswering(address, name) {
  for (let i = 0; i < 200; i++) {
    try {
      const out = sh("ip", "netns", "exec", CLI, "kdig", `@${address}`, name, "+timeout=1", "+retry=0");
      if (/status: NOERROR/.test(out)) return;
    } catch {
      // not yet
    }
    await sleep(100);
  }
  throw new Error(`${address} does not answer ${name}`);
}

async function startServer(kind) {
  const child = start(SRV, SERVER_ARGV[kind]());
  try {
    await waitAnswering(ADDR[kind], "host1.lan.");
  } catch (err) {
    child.kill("SIGKILL");
    throw new Error(`${kind}: ${err.message}\n${child.log()}`);
  }
  return child;
}

async function stop(child) {
  if (values["server-log"] !== undefined) appendFileSync(values["server-log"], child.log());
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const t = setTimeout(() => child.kill("SIGKILL"), 5000);
  await gone;
  clearTimeout(t);
}

/** dnsperf from the client namespace on CPU 1 (at real-time priority with `rt`); returns qps and, with `verbose`, every latency (ms). */
function dnsperf(server, file, args, verbose = false, rt = false) {
  const prio = rt ? ["chrt", "-f", RT_PRIORITY] : [];
  const out = sh("ip", "netns", "exec", CLI, ...prio, "taskset", "-c", "1", "dnsperf", "-s", server, "-d", file, ...args, ...(verbose ? ["-v"] : []));
  const qps = Number(/Queries per second:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const lost = Number(/Queries lost:\s+(\d+)/.exec(out)?.[1] ?? NaN);
  const completed = Number(/Queries completed:\s+(\d+)/.exec(out)?.[1] ?? NaN);
  const latencies = verbose ? [...out.matchAll(/^> \S+ \S+ \S+ ([\d.]+)$/gm)].map((m) => Number(m[1]) * 1000) : [];
  return { qps, lost, completed, latencies };
}

/** CPU time (all threads) the process has used, in ms: user and system (the kernel's UDP and veth work). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  // utime and stime are fields 14 and 15 of the line, in clock ticks (100 per second on Linux).
  return { user: Number(fields[11]) * 10, sys: Number(fields[12]) * 10 };
}

/** dnsperf plus the server's CPU time per answered query (µs): a figure the machine's other load disturbs less than qps. */
function measured(pid, server, file, args) {
  const before = cpuMs(pid);
  const r = dnsperf(server, file, args);
  const after = cpuMs(pid);
  const per = (ms) => round((ms * 1000) / (r.completed || 1));
  return { ...r, cpuUs: per(after.user + after.sys - before.user - before.sys), userUs: per(after.user - before.user) };
}

/** The process's biggest mappings by resident size (for --server-log: where the memory is). */
function mappings(pid) {
  const rows = [];
  let current;
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) {
      const [range, , , , , path] = line.split(/\s+/);
      const [a, b] = range.split("-").map((x) => parseInt(x, 16));
      current = { path: path || "[anon]", sizeKb: (b - a) / 1024, rssKb: 0 };
      rows.push(current);
    } else if (line.startsWith("Rss:") && current) current.rssKb = Number(line.split(/\s+/)[1]);
  }
  const byPath = new Map();
  for (const r of rows) {
    // V8 allocates its heap in 256 kB pages: counted apart from other anonymous memory.
    const key = r.path === "[anon]" && r.sizeKb === 256 ? "[anon 256 kB pages]" : r.path;
    byPath.set(key, (byPath.get(key) ?? 0) + r.rssKb);
  }
  const totals = [...byPath].sort((a, b) => b[1] - a[1]).map(([path, kb]) => `${String(kb).padStart(8)} kB total ${path}`);
  const top = rows.sort((x, y) => y.rssKb - x.rssKb).slice(0, 25).map((r) => `${String(r.rssKb).padStart(8)} kB of ${String(r.sizeKb).padStart(8)} kB ${r.path}`);
  return [...totals, ...top].join("\n");
}

/** For our resolver: which UDP path serves, seen from outside (the native helper's thread is "dns-udp-recv"). */
function udpPath(kind, pid) {
  if (!OURS.includes(kind)) return "";
  const threads = readdirSync(`/proc/${pid}/task`).map((t) => readFileSync(`/proc/${pid}/task/${t}/comm`, "utf8").trim());
  return threads.includes("dns-udp-recv") ? " [native UDP]" : " [node:dgram]";
}

/** Every thread of a process to SCHED_FIFO (on) or back to SCHED_OTHER (off). */
function realtime(pid, on) {
  sh("chrt", "-a", ...(on ? ["-f", "-p", RT_PRIORITY] : ["-o", "-p", "0"]), String(pid));
}

/** Collections in a --trace-gc log: count, total and largest pause (ms) of young (scavenge) and full ones. */
function gcSummary(log) {
  const sum = { young: { count: 0, totalMs: 0, maxMs: 0 }, full: { count: 0, totalMs: 0, maxMs: 0 } };
  for (const m of log.matchAll(/ms: (Scavenge|Minor Mark-Sweep|Mark-Compact|Mark-sweep)[^,]*, ([\d.]+) \/ ([\d.]+) ms/g)) {
    const kind = /Scavenge|Minor/.test(m[1]) ? sum.young : sum.full;
    const ms = Number(m[2]);
    kind.count++;
    kind.totalMs = round(kind.totalMs + ms, 2);
    kind.maxMs = Math.max(kind.maxMs, ms);
  }
  return sum;
}

function rssMb(pid) {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN);
  return round(kb / 1024);
}

const load = (seconds) => ["-l", String(seconds), "-c", "4", "-q", "200"];

const THROUGHPUT = ["hit", "local", "miss"].filter((t) => PHASES.has(t));

/** One throughput measurement of a started server: the query file and dnsperf arguments per phase. */
function throughput(kind, child, phase, run) {
  const a = ADDR[kind];
  if (phase === "hit") return measured(child.pid, a, p("hit.q"), load(SECONDS));
  if (phase === "local") return measured(child.pid, a, p("local.q"), load(SECONDS));
  const missFile = p(`miss-${kind}-${run}.q`);
  writeFileSync(missFile, Array.from({ length: 400_000 }, (_, i) => `m${run}x${i}.miss.bench.test. A`).join("\n") + "\n");
  try {
    return measured(child.pid, a, missFile, [...load(SECONDS), "-n", "1"]);
  } finally {
    rmSync(missFile);
  }
}

async function main() {
  setup();
  const upstream = start(SRV, ["taskset", "-c", "1", "unbound", "-d", "-c", p("upstream.conf")]);
  await waitAnswering(ADDR.upstream, "x.hit.bench.test.");
  // results[kind][phase] = one measurement per run
  const results = Object.fromEntries(SERVERS.map((s) => [s, Object.fromEntries(THROUGHPUT.map((t) => [t, []]))]));
  for (let run = 0; run < RUNS && THROUGHPUT.length > 0; run++) {
    for (const kind of SERVERS) {
      const child = await startServer(kind);
      try {
        dnsperf(ADDR[kind], p("hit.q"), ["-n", "1", "-c", "1", "-q", "20"]); // warm the cache
        const line = [];
        for (const phase of THROUGHPUT) {
          // The floor echoes: a miss costs it what a hit does.
          if (kind === "floor" && phase === "miss") continue;
          const m = throughput(kind, child, phase, run);
          results[kind][phase].push(m);
          line.push(`${phase} ${Math.round(m.qps)} (${m.cpuUs} µs, user ${m.userUs})`);
        }
        process.stderr.write(`run ${run + 1}/${RUNS} ${kind}${udpPath(kind, child.pid)}: ${line.join(" ")} qps (CPU per query) load ${loadAverage()}\n`);
      } finally {
        await stop(child);
      }
    }
  }

  // Latency at half of our own cache-hit throughput (measured now when this run has none), the same rate for everyone.
  const base = SERVERS.includes("ours") ? "ours" : SERVERS[0];
  const measureBase = PHASES.has("latency") && values["latency-qps"] === undefined;
  const baseQps = results[base].hit?.length ? median(results[base].hit.map((m) => m.qps)) : measureBase ? await maxHitQps(base) : NaN;
  const rate = values["latency-qps"] !== undefined ? Number(values["latency-qps"]) : Math.round(baseQps / 2);
  const latency = {};
  const rss = {};
  for (const kind of SERVERS) {
    if (!PHASES.has("latency") && !PHASES.has("rss")) break;
    const child = await startServer(kind);
    try {
      const a = ADDR[kind];
      if (PHASES.has("latency")) {
        dnsperf(a, p("hit.q"), ["-n", "1", "-c", "1", "-q", "20"]);
        let all = [];
        const perRun = [];
        const logFrom = child.log().length;
        if (values.rt) realtime(child.pid, true);
        try {
          // concat, not push(...): a quiet machine gives more samples than a call's argument limit
          for (let run = 0; run < RUNS; run++) {
            const l = dnsperf(a, p("hit.q"), ["-l", String(SECONDS), "-c", "4", "-q", "200", "-Q", String(rate)], true, values.rt).latencies;
            perRun.push(round(percentile([...l].sort((x, y) => x - y), 0.99), 3));
            all = all.concat(l);
          }
        } finally {
          if (values.rt) realtime(child.pid, false);
        }
        all.sort((x, y) => x - y);
        await sleep(300); // the server's output written during the runs (execFileSync blocked this loop)
        latency[kind] = { rate, samples: all.length, p50Ms: round(percentile(all, 0.5), 3), p99Ms: round(percentile(all, 0.99), 3), p99PerRunMs: perRun, maxMs: round(all[all.length - 1] ?? NaN, 3), realtime: values.rt, loadAverage: loadAverage() };
        if (values.gc && OURS.includes(kind)) latency[kind].gc = gcSummary(child.log().slice(logFrom));
        process.stderr.write(`latency ${kind}: ${JSON.stringify(latency[kind])}\n`);
      }
      if (PHASES.has("rss") && kind !== "floor") {
        const fill = p("fill.q");
        writeFileSync(fill, Array.from({ length: RSS_NAMES }, (_, i) => `f${i}.fill.bench.test. A`).join("\n") + "\n");
        const before = rssMb(child.pid);
        if (values["server-log"] !== undefined) appendFileSync(values["server-log"], `${kind} idle, mappings by RSS:\n${mappings(child.pid)}\n`);
        const filled = dnsperf(a, fill, ["-n", "1", "-c", "4", "-q", "200"]).completed;
        await sleep(1000);
        const justAfter = rssMb(child.pid);
        await sleep(RSS_SETTLE_S * 1000 - 1000);
        // filled: answers to the 100k fill queries (a loaded machine can lose some: fewer entries cached)
        rss[kind] = { idleMb: before, afterFillMb: justAfter, with100kMb: rssMb(child.pid), filled };
        process.stderr.write(`rss ${kind}: ${JSON.stringify(rss[kind])} load ${loadAverage()}\n`);
        if (values["server-log"] !== undefined) appendFileSync(values["server-log"], `${kind} with 100k, mappings by RSS:\n${mappings(child.pid)}\n`);
      }
    } finally {
      await stop(child);
    }
  }
  await stop(upstream);

  const summary = Object.fromEntries(
    SERVERS.map((k) => {
      const r = results[k];
      const med = (phase, f) => (r[phase]?.length ? median(r[phase].map(f)) : undefined);
      const qps = Object.fromEntries(THROUGHPUT.map((t) => [t, Math.round(med(t, (m) => m.qps))]));
      const cpu = Object.fromEntries(THROUGHPUT.map((t) => [t, med(t, (m) => m.cpuUs)]));
      const user = Object.fromEntries(THROUGHPUT.map((t) => [t, med(t, (m) => m.userUs)]));
      const runs = Object.fromEntries(THROUGHPUT.map((t) => [t, r[t].map((m) => ({ qps: Math.round(m.qps), cpuUs: m.cpuUs, userUs: m.userUs, lost: m.lost }))]));
      return [k, { qps, cpuUsPerQuery: cpu, userUsPerQuery: user, runs, latency: latency[k], rss: rss[k] }];
    }),
  );
  const doc = { date: new Date().toISOString(), loadAverage: loadAverage(), runs: RUNS, seconds: SECONDS, dnsperf: "-c 4 -q 200", pinning: "servers on CPU 0; dnsperf and the upstream unbound on CPU 1", realtimeLatency: values.rt, summary };
  process.stdout.write(JSON.stringify(doc, null, 2) + "\n");
  const cell = (v, unit = "") => (v === undefined || Number.isNaN(v) ? "–" : `${v}${unit}`);
  const rows = SERVERS.map((k) => {
    const s = summary[k];
    const c = s.cpuUsPerQuery;
    const u = s.userUsPerQuery;
    return `| ${k} | ${cell(s.qps.hit)} | ${cell(s.qps.local)} | ${cell(s.qps.miss)} | ${cell(c.hit)} / ${cell(c.local)} / ${cell(c.miss)} µs (user ${cell(u.hit)} / ${cell(u.local)} / ${cell(u.miss)}) | ${cell(s.latency?.p50Ms)} / ${cell(s.latency?.p99Ms)} ms | ${cell(s.rss?.idleMb)} → ${cell(s.rss?.with100kMb)} MB |`;
  });
  process.stderr.write(
    ["", `load average at the end: ${loadAverage()}`, `| server | cache-hit qps | local-zone qps | miss qps | CPU per query hit / local / miss | p50 / p99 at ${rate} qps | RSS idle → 100k cached |`, "|---|---|---|---|---|---|---|", ...rows, ""].join("\n"),
  );
}

/** The server's cache-hit qps in one short full-load run (for the latency rate when no throughput run was asked for). */
async function maxHitQps(kind) {
  const child = await startServer(kind);
  try {
    dnsperf(ADDR[kind], p("hit.q"), ["-n", "1", "-c", "1", "-q", "20"]);
    return dnsperf(ADDR[kind], p("hit.q"), load(SECONDS)).qps;
  } finally {
    await stop(child);
  }
}

const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

async function cleanup() {
  for (const c of children) c.kill("SIGKILL");
  for (const ns of [CLI, SRV]) {
    try {
      sh("ip", "netns", "del", ns);
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

// A bench stopped from outside (timeout, Ctrl-C) still removes its namespaces, servers and files.
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    cleanup().finally(() => process.exit(130));
  });
}

main()
  .catch((err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exitCode = 1;
  })
  .finally(cleanup);
