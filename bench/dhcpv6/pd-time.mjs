#!/usr/bin/env node
// Time from program start to a delegated prefix: routerd-dhcpv6-client vs dhcpcd, against the same
// kea-dhcp6 (TESTBEDS.md §A) in one run. Needs root, kea-dhcp6 and dhcpcd; build the client first:
//   npx tsc -p apps/routerd-dhcpv6-client/tsconfig.json
// Usage: node bench/dhcpv6/pd-time.mjs [--runs 7]
// Runs alternate between the clients; each run starts with a fresh state dir (new client state) and the
// server's leases wiped. Our client runs standalone (events on stdout) and in the daemon form routerd runs
// (--instance: Unix socket, status, event log), and standalone with --no-rapid-commit, which takes the
// 4-message exchange and waits the first retransmission time (~1 s) for Advertises (RFC 8415 §18.2.1).
// Prints one JSON object: per-client samples (ms), median, and our client's RSS at acquisition.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";

const repo = new URL("../..", import.meta.url).pathname;
const clientBin = join(repo, "apps/routerd-dhcpv6-client/bin/routerd-dhcpv6-client.js");
if (!existsSync(join(repo, "apps/routerd-dhcpv6-client/dist/main.js"))) {
  process.stderr.write("build first: npx tsc -p apps/routerd-dhcpv6-client/tsconfig.json\n");
  process.exit(2);
}
const { values } = parseArgs({ options: { runs: { type: "string", default: "7" } } });
const runs = Math.max(5, Number(values.runs));

const sh = (argv) => execFileSync(argv[0], argv.slice(1), { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const trySh = (argv) => {
  try {
    return sh(argv);
  } catch {
    return "";
  }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const id = randomBytes(3).toString("hex");
const isp = `rd6b-${id}-isp`;
const rtr = `rd6b-${id}-rtr`;
const dir = mkdtempSync(join(tmpdir(), `rd6-bench-${id}-`));
const keaSock = join(dir, "kea.sock");
const children = new Set();

function keaConfig() {
  return {
    Dhcp6: {
      "interfaces-config": { interfaces: ["veth-isp"] },
      "control-socket": { "socket-type": "unix", "socket-name": keaSock },
      "lease-database": { type: "memfile", persist: true, name: join(dir, "kea-leases.csv"), "lfc-interval": 0 },
      "data-directory": dir,
      "hooks-libraries": [{ library: "/usr/lib/x86_64-linux-gnu/kea/hooks/libdhcp_lease_cmds.so" }],
      "preferred-lifetime": 30,
      "valid-lifetime": 60,
      "renew-timer": 10,
      "rebind-timer": 20,
      subnet6: [
        {
          id: 1,
          subnet: "2001:db8:1::/64",
          interface: "veth-isp",
          "rapid-commit": true,
          "pd-pools": [{ prefix: "2001:db8:1000::", "prefix-len": 40, "delegated-len": 56 }],
        },
      ],
      loggers: [{ name: "kea-dhcp6", output_options: [{ output: join(dir, "kea.log") }], severity: "WARN" }],
    },
  };
}

const DHCPCD_CONF = `allowinterfaces veth-rtr lan0
duid
ipv6only
noipv6rs
reboot 0
timeout 0
nohook resolv.conf, timesyncd, ntp, hostname
interface veth-rtr
  ia_pd 1 lan0/0/64
`;

function keaCommand(command, args) {
  return new Promise((resolve, reject) => {
    const s = connect(keaSock);
    let data = "";
    s.on("connect", () => s.write(JSON.stringify(args ? { command, arguments: args } : { command })));
    s.on("data", (d) => (data += d));
    s.on("error", reject);
    s.on("end", () => resolve(JSON.parse(data)));
  });
}

async function wipeLeases() {
  const all = await keaCommand("lease6-get-all");
  for (const l of all.arguments?.leases ?? []) await keaCommand("lease6-del", { "ip-address": l["ip-address"], type: l.type });
}

function startIn(ns, argv, env = process.env) {
  const child = spawn("ip", ["netns", "exec", ns, ...argv], { stdio: ["ignore", "pipe", "pipe"], env });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

async function stopChild(child, timeoutMs = 8000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  const started = Date.now();
  // dhcpcd can miss a SIGTERM right after binding (TESTBEDS §A.8): repeat it.
  while (child.exitCode === null && child.signalCode === null) {
    child.kill(Date.now() - started > timeoutMs ? "SIGKILL" : "SIGTERM");
    await Promise.race([exited, sleep(300)]);
  }
}

/** Resolves with the time the first line matching `pattern` appears on stdout or stderr. */
function firstLine(child, pattern, timeoutMs = 20_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms`)), timeoutMs);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => {
        if (pattern.test(line)) {
          clearTimeout(timer);
          resolve(performance.now());
        }
      });
    }
    child.once("exit", (code) => reject(new Error(`exited with ${code} before ${pattern}`)));
  });
}

function procStatus(pid) {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1]);
  return { rssKb: kb("VmRSS"), hwmKb: kb("VmHWM") };
}

async function runOurs(extraArgs) {
  const stateDir = mkdtempSync(join(dir, "ours-"));
  const t0 = performance.now();
  const child = startIn(rtr, [process.execPath, clientBin, "--interface", "veth-rtr", "--state-dir", stateDir, "--prefix-length", "56", "--log-level", "warn", ...extraArgs]);
  const t1 = await firstLine(child, /"event":"acquired"/);
  const mem = procStatus(child.pid);
  await stopChild(child);
  return { ms: t1 - t0, ...mem };
}

/** The daemon form routerd runs (--instance): socket, status, event log; the acquired event is logged on stdout. */
async function runOursDaemon() {
  const base = mkdtempSync(join(dir, "daemon-"));
  const t0 = performance.now();
  const child = startIn(rtr, [process.execPath, clientBin, "--instance", "bench", "--interface", "veth-rtr", "--run-dir", join(base, "run"), "--state-dir", join(base, "state"), "--prefix-length", "56", "--log-level", "info"]);
  const t1 = await firstLine(child, /"topic":"dhcpv6\.prefix\.acquired"/);
  const mem = procStatus(child.pid);
  await stopChild(child);
  return { ms: t1 - t0, ...mem };
}

async function runDhcpcd() {
  const db = join(dir, "dhcpcd-db");
  rmSync(db, { recursive: true, force: true });
  mkdirSync(db);
  const conf = join(dir, "dhcpcd.conf");
  // ip netns exec gives a private mount namespace: point dhcpcd's fixed dirs at the test dir / a tmpfs.
  const script = `mount --bind ${db} /var/lib/dhcpcd && mount -t tmpfs tmpfs /run && mkdir -p /run/dhcpcd && exec dhcpcd -6 -B -d -f ${conf} veth-rtr`;
  const t0 = performance.now();
  const child = startIn(rtr, ["sh", "-c", script]);
  const t1 = await firstLine(child, /delegated prefix/);
  await stopChild(child);
  // dhcpcd's privilege-separation helpers must be gone too.
  for (const pid of trySh(["ip", "netns", "pids", rtr]).split(/\s+/).filter(Boolean)) trySh(["kill", "-9", pid]);
  return { ms: t1 - t0 };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round = (x) => Math.round(x * 10) / 10;
const summary = (samples, key = "ms") => {
  const xs = samples.map((s) => s[key]);
  return { samplesMs: xs.map(round), medianMs: round(median(xs)), minMs: round(Math.min(...xs)), maxMs: round(Math.max(...xs)) };
};

async function main() {
  sh(["ip", "netns", "add", isp]);
  sh(["ip", "netns", "add", rtr]);
  for (const ns of [isp, rtr]) {
    sh(["ip", "-n", ns, "link", "set", "lo", "up"]);
    sh(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0"]);
  }
  sh(["ip", "link", "add", "veth-isp", "netns", isp, "type", "veth", "peer", "name", "veth-rtr", "netns", rtr]);
  sh(["ip", "-n", rtr, "link", "add", "lan0", "type", "veth", "peer", "name", "lan0p"]);
  sh(["ip", "-n", isp, "link", "set", "veth-isp", "up"]);
  for (const l of ["veth-rtr", "lan0", "lan0p"]) sh(["ip", "-n", rtr, "link", "set", l, "up"]);
  writeFileSync(join(dir, "kea6.json"), JSON.stringify(keaConfig(), null, 2));
  writeFileSync(join(dir, "dhcpcd.conf"), DHCPCD_CONF);
  const kea = startIn(isp, ["kea-dhcp6", "-c", join(dir, "kea6.json")], { ...process.env, KEA_PIDFILE_DIR: dir, KEA_LOCKFILE_DIR: dir });
  for (let i = 0; !existsSync(keaSock); i++) {
    if (i > 200 || kea.exitCode !== null) throw new Error("kea-dhcp6 did not start");
    await sleep(50);
  }
  const results = { ours: [], oursDaemon: [], oursNoRapidCommit: [], dhcpcd: [] };
  const plan = [
    ["ours", () => runOurs([])],
    ["oursDaemon", () => runOursDaemon()],
    ["dhcpcd", () => runDhcpcd()],
    ["oursNoRapidCommit", () => runOurs(["--no-rapid-commit"])],
  ];
  // One discarded warm-up each (page cache, kea's first allocation), then alternate.
  for (const [, run] of plan) {
    await run();
    await wipeLeases();
  }
  for (let i = 0; i < runs; i++) {
    for (const [name, run] of plan) {
      results[name].push(await run());
      await wipeLeases();
    }
  }
  const versions = {
    node: process.version,
    kea: trySh(["kea-dhcp6", "-v"]).trim(),
    dhcpcd: trySh(["dhcpcd", "--version"]).split("\n")[0]?.trim(),
  };
  const ours = summary(results.ours);
  const dhcpcd = summary(results.dhcpcd);
  return {
    bench: "dhcpv6-pd-time",
    runs,
    server: "kea-dhcp6, rapid-commit enabled on the subnet",
    measured: "spawn of the client process until it reports the delegated prefix (our 'acquired' JSON line; dhcpcd's 'delegated prefix' log line)",
    versions,
    routerdDhcpv6Client: {
      ...ours,
      rssKbAtAcquire: { median: median(results.ours.map((r) => r.rssKb)), max: Math.max(...results.ours.map((r) => r.rssKb)) },
      peakRssKb: Math.max(...results.ours.map((r) => r.hwmKb)),
    },
    routerdDhcpv6ClientDaemon: {
      ...summary(results.oursDaemon),
      rssKbAtAcquire: { median: median(results.oursDaemon.map((r) => r.rssKb)), max: Math.max(...results.oursDaemon.map((r) => r.rssKb)) },
      peakRssKb: Math.max(...results.oursDaemon.map((r) => r.hwmKb)),
    },
    routerdDhcpv6ClientNoRapidCommit: summary(results.oursNoRapidCommit),
    dhcpcd,
    oursMedianVsDhcpcd: round(ours.medianMs / dhcpcd.medianMs),
    oursDaemonMedianVsDhcpcd: round(summary(results.oursDaemon).medianMs / dhcpcd.medianMs),
  };
}

async function cleanup() {
  await Promise.all([...children].map((c) => stopChild(c)));
  for (const ns of [rtr, isp]) trySh(["ip", "netns", "del", ns]);
  rmSync(dir, { recursive: true, force: true });
}

let code = 0;
try {
  process.stdout.write(`${JSON.stringify(await main(), null, 2)}\n`);
} catch (err) {
  process.stderr.write(`bench failed: ${err?.stack ?? err}\n`);
  code = 1;
} finally {
  await cleanup();
}
process.exit(code);
