// What the churn benchmarks (bench/bgp/churn.mjs, bench/dns/churn.mjs) share: their command line, the daemon
// run under memprobe.mjs, GetStatus calls as serve makes them, and the report (memory growth with the load).
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { benchArgs } from "./args.mjs";
import { CHURN_OPTIONS, probed, probeGrowth } from "./memprobe-report.mjs";
import { inMB, smapsBreakdown } from "./smaps.mjs";

export const REPO = new URL("../..", import.meta.url).pathname;
const rpc = await import(join(REPO, "packages/rpc/dist/index.js"));

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The common options (--minutes, --out, --no-gc, --node-flags, --env) plus a benchmark's own; --help prints
 * the running script's header comment.
 */
export function churnArgs(options) {
  const values = benchArgs({ ...CHURN_OPTIONS, ...options }, process.argv[1]);
  return { values, minutes: Number(values.minutes) };
}

/** node's arguments and environment for the daemon under memprobe, which writes <out>/memprobe.jsonl. */
export function probeInto(values, out) {
  const file = join(out, "memprobe.jsonl");
  return { file, ...probed(values, file) };
}

/** One GetStatus call to a daemon over its socket; true when it answered. */
export async function askStatus(runDir, daemon, instance, timeouts = { connectTimeoutMs: 2000, callTimeoutMs: 5000 }) {
  let conn;
  try {
    conn = await rpc.connectDaemon(rpc.daemonSocketPath(runDir, daemon, instance), timeouts);
    await conn.getStatus();
    return true;
  } catch {
    return false;
  } finally {
    conn?.close();
  }
}

/**
 * Samples where the daemon's resident memory is (smaps.mjs: malloc arenas, V8 code, other anonymous, file)
 * every 15 s into <out>/smaps.jsonl, from outside the daemon. Returns the file; the timer does not hold the bench.
 */
export function watchSmaps(pid, out) {
  const file = join(out, "smaps.jsonl");
  const t0 = Date.now();
  setInterval(() => {
    try {
      appendFileSync(file, JSON.stringify({ t: Date.now() - t0, ...smapsBreakdown(pid) }) + "\n");
    } catch {
      /* the daemon is gone: the run is ending */
    }
  }, 15_000).unref();
  return file;
}

/** Each smaps figure one minute in and at the end, and the growth between (MB). */
function smapsGrowth(file, fromMs = 60_000) {
  let rows;
  try {
    rows = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  } catch {
    return {};
  }
  const first = rows.find((r) => r.t >= fromMs) ?? rows[0];
  const last = rows.at(-1);
  const { t: _a, ...a } = first;
  const { t: _b, ...b } = last;
  const growth = Object.fromEntries(Object.keys(b).map((k) => [k, b[k] - a[k]]));
  return { smaps: { atOneMinute: inMB(a), atEnd: inMB(b), growth: inMB(growth) } };
}

/** Prints the run's counters with the memory growth memprobe (and watchSmaps, when given) recorded (JSON on stdout). */
export function printReport(counters, probeFile, smapsFile) {
  console.log(JSON.stringify({ ...counters, ...probeGrowth(probeFile), ...(smapsFile ? smapsGrowth(smapsFile) : {}) }, null, 2));
}
