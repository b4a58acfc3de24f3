#!/usr/bin/env node
// BGP → kernel FIB, side by side in one run (usage below). A gobgpd peer in its own namespace holds N
// prefixes (loaded with AddPathStream before any session); for each implementation we measure, from the
// peer's view of the session becoming Established until the router namespace's FIB holds all N
// (/proc/<pid>/net/fib_triestat "Prefixes:"), then one prefix flapping (withdraw and re-announce →
// `ip monitor` in the router namespace), then the withdraw of everything when the peer drops the session;
// peak RSS (VmHWM) and CPU seconds of each process. Median of --runs runs.
// Build first: npx turbo run build --filter=@routerd/bgp
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { POLL_MS } from "./gobgpd-alone.mjs";
import { IMPLEMENTATIONS } from "./impls.mjs";
import { PEER_IP, destroyLab, destroyLabsOnSignal, fibPrefixes, makeLab, prefixAt, procStats, sleep, startPeer, waitFib } from "./lab.mjs";

const USAGE = `Usage: node bench/bgp/run.mjs [--n 10000,100000] [--runs 3] [--only ROWS] [--flaps 5] [--json]

Rows (--only, comma-separated; default all, in this order):
  routerd   routerd-bgp: its gobgpd + our FIB writer (the default: netlink when the addon is built); also
            split: when its first and last Adj-RIB-In event arrived and when the kernel confirmed its last
            FIB chunk (from its debug log, which also names the writer); ingest BMP by default
  routerd-ip (not by default) routerd-bgp with ROUTERD_BGP_FIB_WRITER=ip: the same with \`ip -batch\`
  routerd-watch (not by default) routerd-bgp with ROUTERD_BGP_INGEST=watch (WatchEvent) instead of the
            default BMP ingest, split as routerd
  gobgpd    gobgpd alone: routerd-bgp's gobgpd, same flags and config, nobody watching, no FIB;
            Established → gobgpd has accepted all N (ListPeer polled every ${POLL_MS} ms); the floor
            routerd-bgp stands on
  gobgpd-watch, gobgpd-bmp (not by default: what gobgpd's events cost it) gobgpd alone with a consumer
            that discards them: routerd-bgp's WatchEvent subscription (not decoded), or a BMP station
            (pre-policy route monitoring); also when the last event arrived
  bird      bird2 (protocol kernel)
  frr       FRR bgpd + zebra
  ipbatch   one ip -batch of the N routes (the kernel floor through ip)
  nlbatch   one netlink batch: the N routes through routerd-bgp's netlink writer (chunks of 2,000), no
            BGP (the floor of the netlink writer; bench/bgp/netlink-batch.mjs)

Environment: BGP_BENCH_NODE_FLAGS="..." (V8 flags for routerd-bgp; default: serve's --max-semi-space-size=4),
BGP_BENCH_ENV="NAME=VALUE -NAME ..." (routerd-bgp's environment beyond what serve gives it, which the routerd
rows start from: daemon-kit's program table, e.g. MALLOC_TRIM_THRESHOLD_; -NAME removes one to compare),
BGP_BENCH_LOG=FILE (a copy of routerd-bgp's debug log), BGP_BENCH_BIN=PATH (another routerd-bgp build's
launcher, for an A/B of two builds: copy apps/routerd-bgp/{bin,dist,package.json} to
dist-base/apps/routerd-bgp/ before changing the code).
`;

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "10000,100000" },
    runs: { type: "string", default: "3" },
    only: { type: "string", default: "routerd,gobgpd,bird,frr,ipbatch,nlbatch" },
    flaps: { type: "string", default: "5" },
    json: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
/** Rows without BGP: the N routes written straight into a fresh router namespace, then deleted. */
const FLOORS = { ipbatch: measureIpBatch, nlbatch: measureNetlinkBatch };

const sizes = values.n.split(",").map(Number);
const runs = Number(values.runs);
const only = values.only.split(",");
for (const name of only) {
  if (!(name in FLOORS) && !(name in IMPLEMENTATIONS)) {
    process.stderr.write(`unknown row ${name}\n${USAGE}`);
    process.exit(2);
  }
}
const flaps = Number(values.flaps);
const TIMEOUT_MS = 180_000;

/** A timer that does not keep the bench alive once everything else is done (for races against a deadline). */
const deadline = (ms) => new Promise((r) => setTimeout(r, ms).unref());

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};

/** `ip -o monitor route` in the router namespace: resolves when a line about `prefix` matching `deleted` arrives. */
function monitor(lab) {
  const child = spawn("ip", ["netns", "exec", lab.r, "ip", "-o", "monitor", "route"], { stdio: ["ignore", "pipe", "ignore"] });
  lab.procs.push(child);
  let buf = "";
  const waiters = [];
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const at = performance.now();
      for (const w of [...waiters]) {
        if (line.includes(w.prefix) && line.startsWith("Deleted") === w.deleted) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(at);
        }
      }
    }
  });
  return {
    next: (prefix, deleted) => new Promise((resolve) => waiters.push({ prefix: prefix.replace(/\/24$/, "/24"), deleted, resolve })),
    stop: () => child.kill(),
  };
}

/**
 * Peak RSS and CPU of each process of an implementation. routerd-bgp replaces its `ip -batch` now and then
 * (fib/ip-batch.ts): the ones that ended are its reaped children, counted with the live one.
 */
function snapshot(impl) {
  const stats = Object.fromEntries(Object.entries(impl.pids()).map(([k, pid]) => [k, procStats(pid)]));
  const batch = stats["ip -batch"];
  if (batch !== undefined && stats["routerd-bgp"] !== undefined) batch.cpuS = +(batch.cpuS + stats["routerd-bgp"].endedChildrenCpuS).toFixed(2);
  for (const v of Object.values(stats)) delete v.endedChildrenCpuS;
  return stats;
}

/** The end snapshot, with each process's CPU at the moment all N were loaded (loadCpuS). */
const withLoadCpu = (end, atLoad) => Object.fromEntries(Object.entries(end).map(([k, v]) => [k, { ...v, loadCpuS: atLoad[k]?.cpuS ?? NaN }]));

async function measureImpl(name, n) {
  const lab = makeLab();
  try {
    const peer = await startPeer(lab, n);
    await sleep(500); // the new veth's transient routes settle first
    const base = fibPrefixes(lab);
    const impl = await IMPLEMENTATIONS[name](lab);
    const established = peer.established();
    await peer.addNeighbor();
    const t0 = await Promise.race([established, deadline(TIMEOUT_MS).then(() => Promise.reject(new Error("no session")))]);
    // gobgpd alone programs no FIB: "all N" is its accepted count, and there is nothing to flap or withdraw.
    if (impl.loaded !== undefined) {
      const t1 = await impl.loaded(n, TIMEOUT_MS);
      const atLoad = snapshot(impl);
      const seen = await impl.consumed();
      const procs = withLoadCpu(snapshot(impl), atLoad);
      await impl.stop();
      peer.close();
      return { fibMs: t1 - t0, withdrawMs: NaN, procs, ...(seen ? { consumed: { lastMs: Math.round(seen.last - t0), messages: seen.messages, bytes: seen.bytes } } : {}) };
    }
    const { at: t1 } = await waitFib(lab, (x) => x >= base + n, TIMEOUT_MS);
    const atLoad = snapshot(impl);
    // Let the implementation settle before the flaps.
    await sleep(1000);
    const mon = monitor(lab);
    await sleep(200);
    // Epoch ms, as in the implementation's log: its load (before the flaps) splits its time.
    const timeline = impl.timeline?.(performance.timeOrigin + t0, performance.timeOrigin + performance.now());
    const flapDel = [];
    const flapAdd = [];
    for (let i = 0; i < flaps; i++) {
      const prefix = prefixAt(i);
      const gone = mon.next(prefix, true);
      let s = performance.now();
      await peer.withdraw(prefix);
      flapDel.push((await Promise.race([gone, deadline(10_000).then(() => NaN)])) - s);
      const back = mon.next(prefix, false);
      s = performance.now();
      await peer.announce(prefix);
      flapAdd.push((await Promise.race([back, deadline(10_000).then(() => NaN)])) - s);
      await sleep(100);
    }
    mon.stop();
    const t2 = performance.now();
    await peer.deleteNeighbor();
    const { at: t3 } = await waitFib(lab, (x) => x <= base, TIMEOUT_MS);
    const after = withLoadCpu(snapshot(impl), atLoad);
    await impl.stop();
    peer.close();
    return { fibMs: t1 - t0, withdrawMs: t3 - t2, flapAddMs: median(flapAdd), flapDelMs: median(flapDel), procs: after, ...(timeline ? { timeline } : {}) };
  } finally {
    destroyLab(lab);
  }
}

async function measureIpBatch(n) {
  const lab = makeLab();
  try {
    await sleep(500);
    const base = fibPrefixes(lab);
    const file = join(lab.dir, "add.batch");
    const del = join(lab.dir, "del.batch");
    const adds = [];
    const dels = [];
    for (let i = 0; i < n; i++) {
      adds.push(`route add ${prefixAt(i)} via ${PEER_IP} proto 219 metric 20`);
      dels.push(`route del ${prefixAt(i)} proto 219 metric 20`);
    }
    writeFileSync(file, adds.join("\n") + "\n");
    writeFileSync(del, dels.join("\n") + "\n");
    let s = performance.now();
    lab.inR("ip", "-batch", file);
    const fibMs = performance.now() - s;
    if (fibPrefixes(lab) < base + n) throw new Error("ip -batch did not install everything");
    s = performance.now();
    lab.inR("ip", "-batch", del);
    const withdrawMs = performance.now() - s;
    return { fibMs, withdrawMs, procs: {} };
  } finally {
    destroyLab(lab);
  }
}

async function measureNetlinkBatch(n) {
  const lab = makeLab();
  try {
    await sleep(500);
    const base = fibPrefixes(lab);
    const script = new URL("netlink-batch.mjs", import.meta.url).pathname;
    const out = JSON.parse(lab.inR(process.execPath, script, String(n), PEER_IP));
    if (fibPrefixes(lab) > base) throw new Error("the netlink batch left routes behind");
    return { fibMs: out.fibMs, withdrawMs: out.withdrawMs, procs: { node: { peakRssMB: out.peakRssMB, cpuS: out.cpuS, loadCpuS: out.loadCpuS } } };
  } finally {
    destroyLab(lab);
  }
}

destroyLabsOnSignal();
const results = {};
for (const n of sizes) {
  results[n] = {};
  for (let r = 0; r < runs; r++) {
    for (const name of only) {
      let res;
      try {
        res = name in FLOORS ? await FLOORS[name](n) : await measureImpl(name, n);
      } catch (err) {
        process.stderr.write(`${name} n=${n} run ${r + 1}: ${err.message}\n`);
        continue;
      }
      (results[n][name] ??= []).push(res);
      const split = res.consumed ? `, last event at ${res.consumed.lastMs} ms (${res.consumed.messages} messages, ${res.consumed.bytes} bytes)` : res.timeline ? `, writer ${res.timeline.writer}, events ${res.timeline.events} at ${Math.round(res.timeline.firstEventMs)}..${Math.round(res.timeline.lastEventMs)} ms, last chunk ${Math.round(res.timeline.lastChunkMs)} ms` : "";
      process.stderr.write(`n=${n} run ${r + 1} ${name}: FIB ${Math.round(res.fibMs)} ms, withdraw ${Math.round(res.withdrawMs)} ms${res.flapAddMs !== undefined ? `, flap +${res.flapAddMs.toFixed(1)}/-${res.flapDelMs.toFixed(1)} ms` : ""}${split} ${JSON.stringify(res.procs)}\n`);
    }
  }
}

/** Medians of routerd-bgp's split: gobgpd's ingest (Established → last Adj-RIB-In event) and what follows. */
function splitSummary(list) {
  const m = (f) => Math.round(median(list.map((x) => f(x.timeline))));
  return {
    firstEventMs: m((t) => t.firstEventMs),
    lastEventMs: m((t) => t.lastEventMs),
    lastChunkMs: m((t) => t.lastChunkMs),
    afterLastEventMs: m((t) => t.lastChunkMs - t.lastEventMs),
    events: m((t) => t.events),
    chunks: m((t) => t.chunks),
    writer: list.map((x) => x.timeline.writer).join("/"),
  };
}

const summary = {};
for (const [n, byImpl] of Object.entries(results)) {
  summary[n] = {};
  for (const [name, list] of Object.entries(byImpl)) {
    const procs = {};
    for (const proc of Object.keys(list[0].procs)) {
      procs[proc] = { peakRssMB: median(list.map((x) => x.procs[proc].peakRssMB)), cpuS: median(list.map((x) => x.procs[proc].cpuS)), loadCpuS: median(list.map((x) => x.procs[proc].loadCpuS)) };
    }
    summary[n][name] = {
      runs: list.length,
      establishedToFibMs: Math.round(median(list.map((x) => x.fibMs))),
      withdrawMs: Math.round(median(list.map((x) => x.withdrawMs))),
      ...(list[0].flapAddMs !== undefined ? { flapAnnounceMs: +median(list.map((x) => x.flapAddMs)).toFixed(1), flapWithdrawMs: +median(list.map((x) => x.flapDelMs)).toFixed(1) } : {}),
      ...(list[0].timeline ? { split: splitSummary(list) } : {}),
      procs,
    };
  }
}
if (values.json) process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
else {
  for (const [n, byImpl] of Object.entries(summary)) {
    process.stdout.write(`\nN = ${n}\n| implementation | Established → FIB | withdraw | flap +/- | peak RSS | CPU (end, and when all N were loaded) |\n|---|---|---|---|---|---|\n`);
    const splits = [];
    for (const [name, s] of Object.entries(byImpl)) {
      if (s.split) splits.push(`${name} (FIB writer ${s.split.writer}): Adj-RIB-In events ${s.split.events} from ${s.split.firstEventMs} to ${s.split.lastEventMs} ms after Established, last FIB chunk (${s.split.chunks}) confirmed at ${s.split.lastChunkMs} ms: ${s.split.afterLastEventMs} ms after the last event`);
      const rss = Object.entries(s.procs).map(([p, v]) => `${p} ${v.peakRssMB} MB`).join(", ") || "-";
      const cpu = Object.entries(s.procs).map(([p, v]) => `${p} ${v.cpuS} s (${v.loadCpuS} s at load)`).join(", ") || "-";
      const flap = s.flapAnnounceMs !== undefined ? `${s.flapAnnounceMs} / ${s.flapWithdrawMs} ms` : "-";
      const label = name.startsWith("gobgpd") ? `${name.replace("gobgpd", "gobgpd alone")} (→ accepted)` : name;
      process.stdout.write(`| ${label} | ${s.establishedToFibMs} ms | ${Number.isFinite(s.withdrawMs) ? `${s.withdrawMs} ms` : "-"} | ${flap} | ${rss} | ${cpu} |\n`);
    }
    for (const line of splits) process.stdout.write(`\n${line}\n`);
  }
}
