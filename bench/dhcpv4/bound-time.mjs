#!/usr/bin/env node
// Time from process start to a bound lease, against one dnsmasq in a network namespace, for
// routerd-dhcpv4-client (the daemon form routerd runs, and the standalone form), busybox udhcpc and
// dhcpcd; plus the resident memory of our client.
// Usage (root): node bench/dhcpv4/bound-time.mjs [--runs N] [--clients daemon,standalone,udhcpc,dhcpcd]
// (also daemon-full-jit: the daemon form with V8's full JIT instead of the interpreter alone)
// prints one JSON document on stdout.
//
// Every client starts without saved state and does DISCOVER/OFFER/REQUEST/ACK; runs are interleaved so
// drift hits all alike. "Bound" is the moment the client reports it: our engine's "lease event" log line
// (daemon form) or JSON "bound" line (standalone), udhcpc's "lease of ... obtained", dhcpcd's
// "leased ... for". For the daemon form, "served" is when the lease is also on its socket for routerd
// (the kit's dhcpv4.lease.bound event line; the kit loads while the exchange runs). dhcpcd runs with
// `nodelay` (else it waits 0-2 s on purpose before its DISCOVER) and in its own mount namespace, where tmpfs
// on /run and a bind mount on /var/lib/dhcpcd keep it away from the host's files (see shared/TESTBEDS.md).
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const ROOT = new URL("../../", import.meta.url).pathname;
const CLIENT = join(ROOT, "apps/routerd-dhcpv4-client/bin/routerd-dhcpv4-client.js");
const { values } = parseArgs({ options: { runs: { type: "string", default: "7" }, clients: { type: "string", default: "daemon,standalone,udhcpc,dhcpcd" } } });
const RUNS = Math.max(5, Number(values.runs));
const RUN_TIMEOUT_MS = 15_000;

const id = randomBytes(3).toString("hex");
const ISP = `rd-d4bench-${id}-isp`;
const RTR = `rd-d4bench-${id}-rtr`;
const ISP_IF = `dbi${id}`;
const WAN_IF = `dbw${id}`;
const dir = mkdtempSync(join(tmpdir(), "rd-d4bench-"));
const children = new Set();

const sh = (...argv) => execFileSync(argv[0], argv.slice(1), { encoding: "utf8" });
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round = (x) => Math.round(x * 10) / 10;

function start(argv, env = process.env) {
  const child = spawn("ip", ["netns", "exec", RTR, ...argv], { stdio: ["ignore", "pipe", "pipe"], env });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

function exited(child) {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once("exit", r));
}

/**
 * Spawns argv and resolves with ms until a line on stdout/stderr matches `re` (and, when given, until each
 * of `more` matched too, reported under its key).
 */
function timeUntil(argv, re, onBound, more = {}, env = process.env) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const spawnedAt = Date.now();
    const child = start(argv, env);
    let text = "";
    let done = false;
    let ms;
    const marks = {};
    const timer = setTimeout(() => finish(new Error(`no bound line within ${RUN_TIMEOUT_MS} ms from ${argv[0]}:\n${text}`)), RUN_TIMEOUT_MS);
    function finish(err) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) {
        child.kill("SIGKILL");
        exited(child).then(() => reject(err));
        return;
      }
      Promise.resolve(onBound?.(child))
        .then(async (extra) => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
          await exited(child);
          resolve({ ms, text, marks, spawnedAt, ...extra });
        })
        .catch(reject);
    }
    const watch = (chunk) => {
      text += chunk;
      const now = Number(process.hrtime.bigint() - t0) / 1e6;
      if (ms === undefined && re.test(text)) ms = now;
      for (const [k, r] of Object.entries(more)) if (marks[k] === undefined && r.test(text)) marks[k] = now;
      if (ms !== undefined && Object.keys(more).every((k) => marks[k] !== undefined)) finish(null);
    };
    child.stdout.setEncoding("utf8").on("data", watch);
    child.stderr.setEncoding("utf8").on("data", watch);
    child.once("exit", () => setTimeout(() => finish(new Error(`${argv[0]} exited before bound:\n${text}`)), 50));
  });
}

/** From our client's own log: spawn to socket open ("dhcpv4 client started", the first DISCOVER follows at once) and socket to bound, in ms. */
function phasesMs(text, spawnedAt) {
  const records = text.split("\n").flatMap((l) => {
    try {
      return l.startsWith('{"level"') ? [JSON.parse(l)] : [];
    } catch {
      return []; // the last line may be cut off
    }
  });
  const started = records.find((r) => r.msg === "dhcpv4 client started");
  const bound = records.find((r) => r.msg === "lease event" && r.event === "bound");
  return started && bound ? { toSocket: started.time - spawnedAt, exchange: bound.time - started.time } : undefined;
}

/** Spawn to exit of `node -e 0` in the same namespace: what any Node program pays before its first line. */
async function nodeBaseline(runs) {
  const out = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    await exited(start([process.execPath, "-e", "0"]));
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}

function rssKb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1]);
  return { rssKb: kb("VmRSS"), hwmKb: kb("VmHWM") };
}

const clients = {
  daemon: (run) =>
    timeUntil(
      [process.execPath, CLIENT, "--instance", `bench${run}`, "--interface", WAN_IF, "--run-dir", join(dir, "run"), "--state-dir", join(dir, "state"), "--no-release"],
      /"event":"bound",/,
      (child) => rssKb(child.pid),
      { served: /"topic":"dhcpv4\.lease\.bound"/ },
    ),
  "daemon-full-jit": (run) =>
    timeUntil(
      [process.execPath, CLIENT, "--instance", `benchj${run}`, "--interface", WAN_IF, "--run-dir", join(dir, "run"), "--state-dir", join(dir, "state"), "--no-release"],
      /"event":"bound",/,
      (child) => rssKb(child.pid),
      { served: /"topic":"dhcpv4\.lease\.bound"/ },
      { ...process.env, ROUTERD_DHCPV4_FULL_JIT: "1" },
    ),
  standalone: (run) => {
    const state = join(dir, `standalone-${run}`);
    return timeUntil(
      [process.execPath, CLIENT, "--interface", WAN_IF, "--state-dir", state, "--json", "--no-release", "--log-level", "info"],
      /"event":"bound"/,
      (child) => rssKb(child.pid),
    );
  },
  udhcpc: () => timeUntil(["udhcpc", "-f", "-q", "-n", "-i", WAN_IF, "-s", "/bin/true"], /lease of [\d.]+ obtained/),
  dhcpcd: (run) => {
    const db = join(dir, `dhcpcd-db-${run}`);
    mkdirSync(db);
    const conf = join(dir, "dhcpcd.conf");
    const script = `mount -t tmpfs tmpfs /run && mount --bind ${db} /var/lib/dhcpcd && exec dhcpcd -4 --noarp -1 -B -d -c /bin/true -f ${conf} ${WAN_IF}`;
    return timeUntil(["sh", "-c", script], /leased [\d.]+ for/);
  },
};

async function cleanup() {
  for (const child of children) child.kill("SIGTERM");
  await Promise.all([...children].map(exited));
  for (const ns of [RTR, ISP]) {
    try {
      sh("ip", "netns", "del", ns);
    } catch {
      /* not created */
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

async function main() {
  sh("ip", "netns", "add", ISP);
  sh("ip", "netns", "add", RTR);
  sh("ip", "link", "add", ISP_IF, "netns", ISP, "type", "veth", "peer", "name", WAN_IF, "netns", RTR);
  for (const [ns, ifc] of [[ISP, ISP_IF], [RTR, WAN_IF]]) {
    sh("ip", "-n", ns, "link", "set", "lo", "up");
    sh("ip", "-n", ns, "link", "set", ifc, "up");
  }
  sh("ip", "-n", ISP, "addr", "add", "10.77.0.1/24", "dev", ISP_IF);
  writeFileSync(join(dir, "dhcpcd.conf"), "nodelay\nnoipv4ll\nnoarp\nnohook resolv.conf, timesyncd, ntp, hostname\n");
  const dnsmasq = spawn("ip", [
    "netns", "exec", ISP, "dnsmasq", "--no-daemon", "--port=0", "--conf-file=/dev/null", `--interface=${ISP_IF}`,
    "--bind-interfaces", "--dhcp-range=10.77.0.100,10.77.0.150,2m", `--dhcp-leasefile=${join(dir, "leases")}`, `--pid-file=${join(dir, "dnsmasq.pid")}`,
    "--dhcp-authoritative",
  ], { stdio: ["ignore", "ignore", "pipe"] });
  children.add(dnsmasq);
  await new Promise((resolve, reject) => {
    let log = "";
    dnsmasq.stderr.setEncoding("utf8").on("data", (c) => {
      log += c;
      if (log.includes("DHCP, IP range")) resolve();
    });
    dnsmasq.once("exit", () => reject(new Error(`dnsmasq exited:\n${log}`)));
  });

  const names = values.clients.split(",").filter((n) => n in clients);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  const served = Object.fromEntries(names.map((n) => [n, []]));
  const memory = Object.fromEntries(names.map((n) => [n, []]));
  const phases = Object.fromEntries(names.map((n) => [n, []]));
  // Run 0 warms dnsmasq (its first offer of an address waits for a ping check) and the page cache.
  for (let run = 0; run <= RUNS; run++) {
    for (const name of run % 2 ? [...names].reverse() : names) {
      const r = await clients[name](run);
      sh("ip", "-n", RTR, "addr", "flush", "dev", WAN_IF);
      if (run === 0) continue;
      samples[name].push(r.ms);
      if (r.marks.served !== undefined) served[name].push(r.marks.served);
      if (r.rssKb) memory[name].push(r);
      const p = phasesMs(r.text, r.spawnedAt);
      if (p) phases[name].push(p);
    }
  }
  const stats = (xs) => ({ medianMs: round(median(xs)), minMs: round(Math.min(...xs)), maxMs: round(Math.max(...xs)), samplesMs: xs.map(round) });
  const results = Object.fromEntries(
    names.map((n) => [
      n,
      {
        ...stats(samples[n]),
        ...(served[n].length ? { servedMedianMs: round(median(served[n])), servedSamplesMs: served[n].map(round) } : {}),
        ...(phases[n].length ? { spawnToSocketMedianMs: median(phases[n].map((p) => p.toSocket)), socketToBoundMedianMs: median(phases[n].map((p) => p.exchange)) } : {}),
        ...(memory[n].length ? { rssKbMedian: median(memory[n].map((m) => m.rssKb)), hwmKbMax: Math.max(...memory[n].map((m) => m.hwmKb)) } : {}),
      },
    ]),
  );
  const ratio = (a, b) => (results[a] && results[b] ? Math.round((results[a].medianMs / results[b].medianMs) * 100) / 100 : undefined);
  return {
    benchmark: "dhcpv4 start-to-bound",
    runs: RUNS,
    host: { node: process.version, dnsmasq: sh("dnsmasq", "--version").split("\n")[0] },
    results,
    ratios: Object.fromEntries(
      [["daemonToUdhcpc", ratio("daemon", "udhcpc")], ["standaloneToUdhcpc", ratio("standalone", "udhcpc")], ["daemonToDhcpcd", ratio("daemon", "dhcpcd")]].filter(([, v]) => v !== undefined),
    ),
    nodeStartupMs: round(median(await nodeBaseline(RUNS))),
  };
}

main()
  .then(async (report) => {
    await cleanup();
    process.stdout.write(JSON.stringify(report, null, 2) + "\n");
  })
  .catch(async (err) => {
    await cleanup();
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  });
