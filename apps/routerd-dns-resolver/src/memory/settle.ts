// A burst of misses (a cache being filled, a flood) leaves its garbage in V8's old generation, and with it
// the C-heap blocks of every datagram it received, until the next full collection — which a resolver that
// then goes quiet may not reach for hours: it would sit at the burst's peak size. When traffic has gone
// quiet after the heap grew, one full collection brings the process back to what it really holds
// (bench/dns/run.mjs, RSS with 100k cached entries, measures it).
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export interface SettleOptions {
  /** How often traffic and heap are looked at. */
  intervalMs: number;
  /** Queries per second below which the resolver counts as quiet. */
  quietQps: number;
  /** Heap growth since the last settle that is worth a full collection. */
  growthBytes: number;
}

export const DEFAULT_SETTLE: SettleOptions = { intervalMs: 5000, quietQps: 200, growthBytes: 8 << 20 };

/** V8's full collection: global gc() when node runs with --expose-gc, else the same function obtained at run time. */
function fullCollection(): (() => void) | undefined {
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

export class MemorySettler {
  private timer: NodeJS.Timeout | undefined;
  private lastQueries: number;
  private baseline = getHeapStatistics().used_heap_size;
  private gc: (() => void) | undefined | null = null;
  /** Full collections run (GetStatus shows it). */
  settles = 0;

  constructor(
    private readonly queries: () => number,
    private readonly opts: SettleOptions = DEFAULT_SETTLE,
  ) {
    this.lastQueries = queries();
  }

  start(): void {
    this.timer = setInterval(() => this.check(), this.opts.intervalMs);
    this.timer.unref();
  }

  /** One look: collect when the heap grew and traffic is quiet. Returns whether it collected. */
  check(): boolean {
    const q = this.queries();
    const qps = ((q - this.lastQueries) * 1000) / this.opts.intervalMs;
    this.lastQueries = q;
    const used = getHeapStatistics().used_heap_size;
    // A heap that shrank on its own sets the new baseline.
    if (used < this.baseline) this.baseline = used;
    if (qps >= this.opts.quietQps || used - this.baseline < this.opts.growthBytes) return false;
    if (this.gc === null) this.gc = fullCollection();
    if (this.gc === undefined) return false;
    this.gc();
    this.settles++;
    this.baseline = getHeapStatistics().used_heap_size;
    return true;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
