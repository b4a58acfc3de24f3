// A burst of misses (a cache being filled, a flood) leaves its garbage in V8's old generation, and with it
// the C-heap blocks of every datagram it received, until the next full collection — which a resolver that
// then goes quiet may not reach for hours: it would sit at the burst's peak size. When traffic has gone
// quiet after the process grew, one full collection brings it back towards what it really holds
// (bench/dns/run.mjs, RSS with 100k cached entries, measures it). Then malloc_trim hands the C heap's free
// pages back, which glibc would otherwise keep at the burst's peak.
// daemon-kit's idle collector handles the slow case (garbage promoted a little at a time, collected once a
// minute when the loop is idle); this one the burst, followed by malloc_trim.
import { fullCollection } from "@routerd/daemon-kit";

export interface SettleOptions {
  /** How often traffic and heap are looked at. */
  intervalMs: number;
  /** Queries per second below which the resolver counts as quiet. */
  quietQps: number;
  /** Growth of the resident size since the last settle that is worth a full collection. */
  growthBytes: number;
  /** The resident size now (bytes). */
  rss?: () => number;
  /** Gives free C-heap pages back after the collection (the native helper's malloc_trim), when there is one. */
  trim?: () => unknown;
}

export const DEFAULT_SETTLE: SettleOptions = { intervalMs: 5000, quietQps: 200, growthBytes: 8 << 20 };

export class MemorySettler {
  private timer: NodeJS.Timeout | undefined;
  private lastQueries: number;
  private readonly rss: () => number;
  private baseline: number;
  private gc: (() => void) | undefined | null = null;
  /** Full collections run. */
  settles = 0;

  constructor(
    private readonly queries: () => number,
    private readonly opts: SettleOptions = DEFAULT_SETTLE,
  ) {
    this.lastQueries = queries();
    this.rss = opts.rss ?? process.memoryUsage.rss;
    this.baseline = this.rss();
  }

  start(): void {
    this.timer = setInterval(() => this.check(), this.opts.intervalMs);
    this.timer.unref();
  }

  /** One look: collect when the process grew and traffic is quiet. Returns whether it collected. */
  check(): boolean {
    const q = this.queries();
    const qps = ((q - this.lastQueries) * 1000) / this.opts.intervalMs;
    this.lastQueries = q;
    const rss = this.rss();
    // Memory given back on its own (or after the last collection, freed late) sets the new baseline.
    if (rss < this.baseline) this.baseline = rss;
    if (qps >= this.opts.quietQps || rss - this.baseline < this.opts.growthBytes) return false;
    if (this.gc === null) this.gc = fullCollection();
    if (this.gc === undefined) return false;
    this.gc();
    // The collection frees the C blocks its garbage held (datagrams, sockets); glibc keeps their pages.
    this.opts.trim?.();
    this.settles++;
    // What the collection could not give back (the cache itself) is the new normal.
    this.baseline = this.rss();
    return true;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
