// A full collection now and then while the process is idle. V8 collects its old generation only once it has
// grown by a step over what the last full collection kept (at least 8 MB for a heap this small), and a router's
// processes promote their garbage slowly: in the soak the heap of routerd-dns-resolver and serve climbed for
// tens of minutes between major collections, and V8 kept the pages it had grown into, so RSS rose for the first
// hour or more with nothing kept (docs/performance.md, "Soak"). One full collection a minute when the event
// loop was mostly idle keeps the heap near what is live; it costs a few ms of CPU (the heaps are 10–25 MB) and
// is skipped while the process is busy (a table load, a query flood: over the minute or the last second), where
// V8 collects on its own anyway.
// What counts as growth is the old generation's, not the whole heap's: the young generation always holds some
// hundred kB of fresh garbage that a scavenge takes anyway, so by the whole heap a process "grew" every minute it
// did anything, and got a full collection it did not need. Each full collection also kills the hidden classes of
// short-lived objects and the optimized code that embedded them, which V8 then compiles again. At the soak's
// churn routerd-dns-resolver and routerd-bgp promote more than 256 KiB a minute, so they are still collected
// about once a minute (docs/performance.md, "Soak", session 10); a daemon with only young garbage is left alone.
import { performance, type EventLoopUtilization } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export interface IdleGcOptions {
  /** How often to look. */
  intervalMs: number;
  /** The event loop's busy share over the last interval (0–1) above which the process is not idle. */
  maxUtilization: number;
  /** Growth of the old generation in use since the last collection of ours below which there is nothing to collect. */
  minGrowthBytes: number;
  /** When due, the loop must also have been idle over this span just before the collection. */
  quietMs: number;
}

export const DEFAULT_IDLE_GC: IdleGcOptions = { intervalMs: 60_000, maxUtilization: 0.25, minGrowthBytes: 256 << 10, quietMs: 1000 };

/** The collector's settings for a process: off with ROUTERD_IDLE_GC=0 (to compare), else `opts`. */
export function idleGcSetting(env: NodeJS.ProcessEnv, opts: IdleGcOptions | false = DEFAULT_IDLE_GC): IdleGcOptions | false {
  return env.ROUTERD_IDLE_GC === "0" ? false : opts;
}

/** What one look sees. */
export interface IdleLook {
  utilization: number;
  oldUsed: number;
  /** Old generation in use right after the last collection of ours (or at start). */
  oldUsedAfterLast: number;
}

/** Whether this look calls for a full collection: idle, and the old generation grew since the last one. */
export function idleCollectionDue(look: IdleLook, opts: IdleGcOptions): boolean {
  return look.utilization <= opts.maxUtilization && look.oldUsed - look.oldUsedAfterLast >= opts.minGrowthBytes;
}

/** V8's spaces that a scavenge empties; everything else (old, code, large objects, ...) is the old generation. */
const YOUNG_SPACES = new Set(["new_space", "new_large_object_space"]);

/** Bytes in use in the old generation (every heap space but the young ones). */
export function oldGenerationUsed(): number {
  let used = 0;
  for (const space of getHeapSpaceStatistics()) if (!YOUNG_SPACES.has(space.space_name)) used += space.space_used_size;
  return used;
}

/** V8's full collection: global gc() when node runs with --expose-gc, else the same function obtained at run time. */
export function fullCollection(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === "function") return exposed;
  try {
    // Documented V8 flag; contexts created after it see gc().
    setFlagsFromString("--expose-gc");
    const gc: unknown = runInNewContext("gc");
    return typeof gc === "function" ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

export interface IdleCollectorIo {
  /** Event loop utilization since `since` (perf_hooks' eventLoopUtilization). */
  elu: (since?: EventLoopUtilization) => EventLoopUtilization;
  oldUsed: () => number;
  gc: () => (() => void) | undefined;
  now: () => number;
}

const REAL_IO: IdleCollectorIo = {
  elu: (since) => performance.eventLoopUtilization(since),
  oldUsed: oldGenerationUsed,
  gc: fullCollection,
  now: () => performance.now(),
};

export class IdleCollector {
  private timer: NodeJS.Timeout | undefined;
  private last: EventLoopUtilization;
  private oldUsedAfterLast: number;
  private gc: (() => void) | undefined | null = null;
  /** Collections run, and the time they took (ms): the cost. */
  collections = 0;
  collectMs = 0;

  constructor(
    private readonly opts: IdleGcOptions = DEFAULT_IDLE_GC,
    private readonly io: IdleCollectorIo = REAL_IO,
  ) {
    this.last = io.elu();
    this.oldUsedAfterLast = io.oldUsed();
  }

  start(): this {
    this.timer = setInterval(() => {
      if (!this.due()) return;
      // The last second must be quiet too: a burst that began just now (a table load, a query flood) is not
      // paused by a collection of ours.
      const mark = this.io.elu();
      setTimeout(() => {
        if (this.io.elu(mark).utilization <= this.opts.maxUtilization) this.collect();
      }, this.opts.quietMs).unref();
    }, this.opts.intervalMs);
    this.timer.unref();
    return this;
  }

  /** The look at the end of an interval: idle over it, and the old generation grew since the last collection. */
  due(): boolean {
    const now = this.io.elu();
    const utilization = this.io.elu(this.last).utilization;
    this.last = now;
    return idleCollectionDue({ utilization, oldUsed: this.io.oldUsed(), oldUsedAfterLast: this.oldUsedAfterLast }, this.opts);
  }

  /** One full collection; returns whether there was a gc() to run. */
  collect(): boolean {
    if (this.gc === null) this.gc = this.io.gc();
    if (this.gc === undefined) return false;
    const t0 = this.io.now();
    this.gc();
    this.collectMs += this.io.now() - t0;
    this.collections++;
    this.oldUsedAfterLast = this.io.oldUsed();
    return true;
  }

  /** A look and, when due, the collection at once (what start() does, without the quiet second). */
  check(): boolean {
    return this.due() && this.collect();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
