// Loaded into a process under test with `--import bench/soak/memprobe.mjs` (on the command line, or in
// NODE_OPTIONS so that routerd serve's daemons inherit it): every MEMPROBE_MS (default 5000) it appends one
// line with process.memoryUsage() before and after a full GC to MEMPROBE_OUT, or to MEMPROBE_DIR/<pid>.jsonl.
// The after-GC figures are what the process keeps alive (a leak grows them, whatever the load); the
// before-GC ones include garbage V8 has not collected yet, which is what RSS follows between major GCs.
// MEMPROBE_GC=0 samples without forcing a GC: the process's memory as V8 leaves it on its own.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

const out = process.env.MEMPROBE_OUT ?? (process.env.MEMPROBE_DIR ? join(process.env.MEMPROBE_DIR, `${process.pid}.jsonl`) : undefined);
const everyMs = Number(process.env.MEMPROBE_MS ?? 5000);
const forceGc = process.env.MEMPROBE_GC !== "0";

/** gc() without --expose-gc on the command line (NODE_OPTIONS does not take that flag in Node 20). */
function fullGc() {
  if (typeof globalThis.gc === "function") return globalThis.gc;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc");
}

if (out) {
  const gc = forceGc ? fullGc() : undefined;
  const t0 = Date.now();
  setInterval(() => {
    const before = process.memoryUsage();
    gc?.();
    const after = process.memoryUsage();
    const row = { t: Date.now() - t0, at: Date.now(), rssBefore: before.rss, heapUsedBefore: before.heapUsed, externalBefore: before.external, ...after };
    appendFileSync(out, JSON.stringify(row) + "\n");
  }, everyMs).unref();
}
