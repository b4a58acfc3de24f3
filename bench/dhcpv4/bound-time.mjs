#!/usr/bin/env node
// Time from process start to a bound lease, against one dnsmasq in a network namespace, for
// routerd-dhcpv4-client, busybox udhcpc and dhcpcd; plus the resident memory of our client.
// Usage (root): node bench/dhcpv4/bound-time.mjs [--runs N] [--clients routerd,udhcpc,dhcpcd]
// prints one JSON document on stdout.
//
// Every client starts without saved state and does DISCOVER/OFFER/REQUEST/ACK; runs are interleaved so
// drift hits all three alike. "Bound" is the moment the client reports it: our JSON "bound" line,
// udhcpc's "lease of ... obtained", dhcpcd's "leased ... for". dhcpcd runs with `nodelay` (else it
// waits 0-2 s on purpose before its DISCOVER) and in its own mount namespace, where tmpfs on /run and a
// bind mount on /var/lib/dhcpcd keep it away from the host's files (see shared/TESTBEDS.md).
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const ROOT = new URL("../../", import.meta.url).pathname;
const CLIENT = join(ROOT, "apps/routerd-dhcpv4-client/bin/routerd-dhcpv4-client.js");
const { values } = parseArgs({ options: { runs: { type: "string", default: "7" }, clients: { type: "string", default: "routerd,udhcpc,dhcpcd" } } });
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

function start(argv) {
  const child = spawn("ip", ["netns", "exec", RTR, ...argv], { stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

function exited(child) {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once("exit", r));
}

/** Spawns argv and resolves with ms until a line on stdout/stderr matches `re`. */
function timeUntil(argv, re, onBound) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = start(argv);
    let text = "";
    let done = false;
    const timer = setTimeout(() => finish(new Error(`no bound line within ${RUN_TIMEOUT_MS} ms from ${argv[0]}:\n${text}`)), RUN_TIMEOUT_MS);
    function finish(err, ms) {
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
          resolve({ ms, text, ...extra });
        })
        .catch(reject);
    }
    const watch = (chunk) => {
      text += chunk;
      if (re.test(text)) finish(null, Number(process.hrtime.bigint() - t0) / 1e6);
    };
    child.stdout.setEncoding("utf8").on("data", watch);
    child.stderr.setEncoding("utf8").on("data", watch);
    child.once("exit", () => setTimeout(() => finish(new Error(`${argv[0]} exited before bound:\n${text}`)), 50));
  });
}

/** From our client's own log: socket open ("dhcpv4 client started") to the bound event, in ms. */
function exchangeMs(text) {
  const records = text.split("\n").filter((l) => l.startsWith('{"level"')).map((l) => JSON.parse(l));
  const started = records.find((r) => r.msg === "dhcpv4 client started");
  const bound = records.find((r) => r.msg === "lease event" && r.event === "bound");
  return started && bound ? bound.time - started.time : undefined;
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
  routerd: (run) => {
    const state = join(dir, `routerd-${run}`);
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
  const memory = [];
  const exchanges = [];
  // Run 0 warms dnsmasq (its first offer of an address waits for a ping check) and the page cache.
  for (let run = 0; run <= RUNS; run++) {
    for (const name of run % 2 ? [...names].reverse() : names) {
      const r = await clients[name](run);
      sh("ip", "-n", RTR, "addr", "flush", "dev", WAN_IF);
      if (run === 0) continue;
      samples[name].push(r.ms);
      if (r.rssKb) memory.push(r);
      if (name === "routerd") exchanges.push(exchangeMs(r.text));
    }
  }
  const results = Object.fromEntries(
    names.map((n) => [n, { medianMs: round(median(samples[n])), minMs: round(Math.min(...samples[n])), maxMs: round(Math.max(...samples[n])), samplesMs: samples[n].map(round) }]),
  );
  return {
    benchmark: "dhcpv4 start-to-bound",
    runs: RUNS,
    host: { node: process.version, dnsmasq: sh("dnsmasq", "--version").split("\n")[0] },
    results,
    ...(results.routerd && results.udhcpc ? { ratioRouterdToUdhcpc: Math.round((results.routerd.medianMs / results.udhcpc.medianMs) * 100) / 100 } : {}),
    ...(results.routerd && results.dhcpcd ? { ratioRouterdToDhcpcd: Math.round((results.routerd.medianMs / results.dhcpcd.medianMs) * 100) / 100 } : {}),
    nodeStartupMs: round(median(await nodeBaseline(RUNS))),
    ...(exchanges.length ? { routerdSocketToBoundMs: round(median(exchanges.filter((x) => x !== undefined))) } : {}),
    ...(memory.length ? { routerdMemoryAtBound: { medianRssKb: median(memory.map((m) => m.rssKb)), maxHwmKb: Math.max(...memory.map((m) => m.hwmKb)) } } : {}),
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
