// Keeps the kernel FIB equal to GoBGP's best paths, incrementally: a changed prefix is one write (a netlink
// message, or an `ip` line), sent in chunks to the FIB writer (writer.ts) while more paths are still
// arriving (ingest and FIB writes overlap). `kernel` is what the kernel holds once every submitted chunk has applied; it is seeded from a
// kernel dump at start and on resync, so a restart rewrites nothing that is already right.
import { Operation, type SpanRecord } from "@routerd/daemon-kit";
import type { Logger } from "pino";
import { flushRoutes, kernelRoutes } from "./kernel.js";
import type { FibTarget, KernelRoute, NextHopKey } from "./lines.js";
import { DEFAULT_WRITERS, openFibWriter, type FibWriter } from "./writer.js";

export interface FibOptions {
  target: FibTarget;
  logger: Logger;
  /**
   * Writes per chunk (default 2000) and chunks in flight (default 2: one applying, one queued, so the writer
   * never waits; changes arriving meanwhile gather into the next chunk instead of many tiny ones).
   */
  chunk?: number;
  maxInFlight?: number;
  /** Default: netlink when the addon is built, else `ip -batch` (ROUTERD_BGP_FIB_WRITER forces one). */
  writer?: FibWriter;
  /** Called after each chunk has applied. */
  onApplied?: (stats: FibStats) => void;
  /** Each chunk as a span (the daemon's ctx.trace: exported only with OTLP traces). */
  trace?: (span: SpanRecord) => void;
  /** Deletes every route of ours in the table (default: `ip route flush table T proto P`, both families). */
  flush?: () => Promise<void>;
}

/**
 * Nothing wanted any more and every route of ours re-evaluated: with the `ip` writer, one `ip route flush` (a
 * netlink dump and deletes sent in bulk) instead of a line and an acknowledgement per route. Below this many
 * routes the lines are quicker (a flush starts two `ip` processes; the batch is already running). The
 * netlink writer sends the deletes a chunk per sendmsg: no slower than the flush, and no dump (100k
 * withdrawn in 12.4 s against 14.8 s with the flush, medians of 3 alternating runs at load 26–34;
 * docs/performance.md, BGP, Session 8).
 */
const FLUSH_MIN = 1000;

/** A chunk in flight, per write: its prefix and what the kernel view held before (restored if the kernel refuses it). */
interface Chunk {
  prefixes: string[];
  previous: (NextHopKey | undefined)[];
  deletes: boolean[];
}

export interface FibStats {
  installed: number;
  desired: number;
  pending: number;
  retained: number;
  writes: number;
  failures: number;
  /** Bulk deletes (every route of ours at once, e.g. the only session lost). */
  flushes: number;
  lastError?: { prefix: string; error: string };
}

export class FibProgrammer {
  /** prefix → next hops GoBGP wants installed. */
  private readonly desired = new Map<string, NextHopKey>();
  /** prefix → next hops in the kernel (after the submitted chunks apply). */
  private readonly kernel = new Map<string, NextHopKey>();
  /** Kernel routes with our protocol but another metric (the metric setting changed): deleted on sight. */
  private readonly strayMetric = new Map<string, number>();
  /** Kernel routes kept while a restarted gobgpd relearns its RIB (see retainUntilSweep). */
  private readonly retained = new Set<string>();
  private readonly dirty = new Set<string>();
  private scheduled = false;
  private inFlight = 0;
  private readonly writer: FibWriter;
  private idleWaiters: (() => void)[] = [];
  readonly stats: FibStats = { installed: 0, desired: 0, pending: 0, retained: 0, writes: 0, failures: 0, flushes: 0 };

  constructor(private readonly opts: FibOptions) {
    this.writer = opts.writer ?? openFibWriter(DEFAULT_WRITERS, opts.logger);
  }

  /** Which writer programs the kernel ("netlink" or "ip"). */
  get writerKind(): FibWriter["kind"] {
    return this.writer.kind;
  }

  get target(): FibTarget {
    return this.opts.target;
  }

  /** Seeds the kernel view from a dump (start, resync). */
  async loadKernel(routes?: KernelRoute[]): Promise<number> {
    const list = routes ?? (await kernelRoutes(this.opts.target));
    this.kernel.clear();
    this.strayMetric.clear();
    for (const r of list) {
      if (r.metric === this.opts.target.metric) this.kernel.set(r.prefix, r.hops);
      else {
        this.strayMetric.set(r.prefix, r.metric);
        this.mark(r.prefix);
      }
    }
    this.stats.installed = this.kernel.size;
    return list.length;
  }

  /**
   * After gobgpd (re)starts with an empty RIB, the routes already in the kernel stay until sweep(): the
   * sessions come back and re-announce them meanwhile, so forwarding never stops.
   */
  retainUntilSweep(): void {
    // Nothing is desired any more until the new gobgpd says so; what the kernel has stays meanwhile.
    this.desired.clear();
    for (const p of this.kernel.keys()) this.retained.add(p);
    this.stats.retained = this.retained.size;
  }

  /** Drops what nobody re-announced since retainUntilSweep(). */
  sweep(): number {
    const n = this.retained.size;
    for (const p of this.retained) this.mark(p);
    this.retained.clear();
    this.stats.retained = 0;
    return n;
  }

  /**
   * The kernel reported a change of one of our routes (ip monitor). The view follows the kernel, and the
   * prefix is re-evaluated: a route someone else deleted or changed is written back.
   */
  observed(route: KernelRoute, deleted: boolean): void {
    if (route.metric !== this.opts.target.metric) {
      if (!deleted) {
        this.strayMetric.set(route.prefix, route.metric);
        this.mark(route.prefix);
      }
      return;
    }
    if (deleted) this.kernel.delete(route.prefix);
    else if (this.kernel.get(route.prefix) === route.hops) return; // our own write confirmed: nothing to do
    else this.kernel.set(route.prefix, route.hops);
    this.mark(route.prefix);
  }

  /** The view is in doubt (the monitor ended): dump the kernel again and re-evaluate every prefix. */
  async resync(): Promise<void> {
    await this.loadKernel();
    for (const p of this.kernel.keys()) this.mark(p);
    for (const p of this.desired.keys()) this.mark(p);
  }

  /** A prefix's best paths changed: hops "" means it has none (withdrawn, or only a local path). */
  update(prefix: string, hops: NextHopKey): void {
    if (hops === "") this.desired.delete(prefix);
    else this.desired.set(prefix, hops);
    if (this.retained.delete(prefix)) this.stats.retained = this.retained.size;
    this.mark(prefix);
  }

  installed(prefix: string): NextHopKey | undefined {
    return this.kernel.get(prefix);
  }

  private mark(prefix: string): void {
    this.dirty.add(prefix);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.pump();
      });
    }
  }

  private pump(): void {
    const emptied = this.desired.size === 0 && this.retained.size === 0 && this.dirty.size >= this.kernel.size;
    if (this.writer.flushesInBulk && emptied && this.kernel.size >= FLUSH_MIN) {
      // Every route of ours was re-evaluated and none is wanted (the only session was lost): one flush,
      // once what is in flight has applied. (Never at start: only a few prefixes are marked there.)
      if (this.inFlight === 0) this.flushAll();
      return;
    }
    const max = this.opts.maxInFlight ?? 2;
    const size = this.opts.chunk ?? 2000;
    while (this.dirty.size > 0 && this.inFlight < max) {
      // The ip process is due for replacement (ip-batch.ts): the next chunk waits until this one applied.
      if (this.writer.draining && this.inFlight > 0) break;
      // The chunk's writes are encoded at once; only the prefixes and what the view held before stay until
      // the kernel answers (a full-table load keeps no line strings alive: docs/performance.md, BGP).
      const out = this.writer.chunk(this.opts.target);
      const chunk: Chunk = { prefixes: [], previous: [], deletes: [] };
      for (const prefix of this.dirty) {
        this.dirty.delete(prefix);
        const stray = this.strayMetric.get(prefix);
        if (stray !== undefined) {
          this.strayMetric.delete(prefix);
          out.delete(prefix, stray);
          chunk.prefixes.push(prefix);
          chunk.previous.push(this.kernel.get(prefix));
          chunk.deletes.push(true);
        }
        const want = this.desired.get(prefix) ?? (this.retained.has(prefix) ? this.kernel.get(prefix) : undefined);
        const have = this.kernel.get(prefix);
        if (want === have) continue;
        if (want === undefined) out.delete(prefix, this.opts.target.metric);
        else out.replace(prefix, want);
        chunk.prefixes.push(prefix);
        chunk.previous.push(have);
        chunk.deletes.push(want === undefined);
        // Optimistic: the kernel view is what it will be once this chunk applies; failures undo it.
        if (want === undefined) this.kernel.delete(prefix);
        else this.kernel.set(prefix, want);
        if (chunk.prefixes.length >= size) break;
      }
      const count = chunk.prefixes.length;
      if (count === 0) break;
      this.inFlight++;
      this.stats.writes += count;
      const op = new Operation("bgp.fib.batch", { "bgp.fib.lines": count, "bgp.fib.table": this.opts.target.table });
      out.submit().then(
        (r) => this.applied(chunk, r.failed, op),
        (err: Error) => this.applied(chunk, new Map(chunk.prefixes.map((_, i) => [i, err.message])), op),
      );
    }
    this.refreshStats();
    if (this.inFlight === 0 && this.dirty.size === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  private flushAll(): void {
    this.inFlight++;
    this.stats.flushes++;
    this.stats.writes += this.kernel.size;
    // The flush covers every pending delete; prefixes announced meanwhile are marked again by update().
    this.dirty.clear();
    this.kernel.clear();
    this.strayMetric.clear();
    const flush = this.opts.flush ?? (() => flushRoutes(this.opts.target));
    flush().then(
      () => this.flushed(undefined),
      (err: Error) => this.flushed(err),
    );
  }

  private flushed(err: Error | undefined): void {
    this.inFlight--;
    if (err !== undefined) {
      this.stats.failures++;
      this.stats.lastError = { prefix: "*", error: err.message };
      this.opts.logger.warn({ err: err.message }, "FIB flush failed: reading the kernel again");
      void this.resync().then(() => this.pump());
      return;
    }
    this.opts.logger.debug({ pending: this.dirty.size }, "FIB flushed");
    this.refreshStats();
    this.opts.onApplied?.(this.stats);
    this.pump();
  }

  private applied(chunk: Chunk, failed: Map<number, string>, op: Operation): void {
    this.inFlight--;
    this.opts.trace?.(op.finish({ "bgp.fib.failed": failed.size }));
    this.opts.logger.debug({ lines: chunk.prefixes.length, failed: failed.size, pending: this.dirty.size, inFlight: this.inFlight }, "FIB chunk applied");
    for (const [i, error] of failed) {
      const prefix = chunk.prefixes[i];
      if (prefix === undefined) continue;
      // A delete of a route that is already gone succeeded as far as we are concerned.
      if (chunk.deletes[i] === true && /No such process|not found/i.test(error)) continue;
      this.stats.failures++;
      this.stats.lastError = { prefix, error };
      this.opts.logger.warn({ prefix, write: chunk.deletes[i] === true ? "delete" : `replace via ${this.kernel.get(prefix)}`, error }, "FIB write failed");
      // The kernel keeps what it had; the next change of the prefix or a resync tries again.
      const previous = chunk.previous[i];
      if (previous === undefined) this.kernel.delete(prefix);
      else this.kernel.set(prefix, previous);
    }
    this.refreshStats();
    this.opts.onApplied?.(this.stats);
    this.pump();
  }

  private refreshStats(): void {
    this.stats.installed = this.kernel.size;
    this.stats.desired = this.desired.size;
    this.stats.pending = this.dirty.size;
  }

  /** Resolves when nothing is pending or in flight. */
  idle(): Promise<void> {
    if (this.inFlight === 0 && this.dirty.size === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** The routes GoBGP wants, for listings. */
  desiredRoutes(): ReadonlyMap<string, NextHopKey> {
    return this.desired;
  }

  close(): void {
    this.writer.close();
  }
}
