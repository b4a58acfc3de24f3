// What the churn benchmarks (bench/bgp/churn.mjs, bench/dns/churn.mjs) share: their command line, the daemon
// run under memprobe.mjs, GetStatus calls as serve makes them, and the report (memory growth with the load).
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CHURN_OPTIONS, probed, probeGrowth } from "./memprobe-report.mjs";

export const REPO = new URL("../..", import.meta.url).pathname;
const rpc = await import(join(REPO, "packages/rpc/dist/index.js"));

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The common options (--minutes, --out, --no-gc, --node-flags) plus a benchmark's own. */
export function churnArgs(options) {
  const { values } = parseArgs({ options: { ...CHURN_OPTIONS, ...options } });
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

/** Prints the run's counters with the memory growth memprobe recorded (JSON on stdout). */
export function printReport(counters, probeFile) {
  console.log(JSON.stringify({ ...counters, ...probeGrowth(probeFile) }, null, 2));
}
