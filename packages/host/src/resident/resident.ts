// The resident inventory of a long-lived process (routerd serve): the kernel objects it observed, kept
// between reconciles and re-read only when a netlink notification, an apply of its own or a doubt says they
// changed — or when the resync period passed. While the monitor is not running (not started yet, ended,
// not available on this system) every observation is a full one, as in the one-shot commands.
// The consistency rule is in docs/serve.md ("Resident inventory").
import type { ArtifactKind } from "@routerd/resource";
import { TopicCache, withImplied, type CacheCounters, type Topic } from "./cache.js";
import { NetlinkMonitor, type MonitorOptions } from "./monitor.js";
import { topicsOfKinds, type ObservationCache } from "../inventory.js";

export interface ResidentOptions {
  /** Everything is read afresh at least this often, notifications or not (default 5 minutes). */
  resyncEveryMs?: number;
  /** The longest wait before restarting a monitor that ended (default 60 s; it starts at 1 s and doubles). */
  maxRestartDelayMs?: number;
  monitor?: MonitorOptions;
  now?: () => number;
  /** Told when the view goes live or stops being live, and why (for logs and events). */
  onState?: (live: boolean, reason: string) => void;
}

export interface ResidentState extends CacheCounters {
  live: boolean;
  /** Why the view is not live, or the last doubt. */
  reason?: string;
  monitorStarts: number;
}

/** What the reconcile engine needs of a resident view. */
export interface ResidentView {
  readonly cache: ObservationCache;
  touched(kinds: Iterable<ArtifactKind>): void;
  doubt(reason: string): void;
}

export const DEFAULT_RESYNC_MS = 5 * 60_000;
/** A monitor that stayed up this long restarts without delay the next time it ends. */
const STABLE_MS = 60_000;

export class ResidentInventory implements ResidentView {
  readonly cache: TopicCache;
  private monitor: NetlinkMonitor | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private stopped = true;
  private failures = 0;
  private liveSince = 0;
  private reason: string | undefined = "not started";
  private monitorStarts = 0;
  private readonly now: () => number;

  constructor(private readonly opts: ResidentOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.cache = new TopicCache({ resyncEveryMs: opts.resyncEveryMs ?? DEFAULT_RESYNC_MS, now: this.now });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.startMonitor();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    this.monitor?.stop();
    this.monitor = undefined;
    this.cache.setLive(false);
  }

  /** routerd changed objects of these kinds: what was read of them (and what they imply) is stale. */
  touched(kinds: Iterable<ArtifactKind>): void {
    this.cache.invalidate(withImplied(topicsOfKinds(kinds)));
  }

  /** Something does not add up (an apply failed, an operator asked): read everything afresh. */
  doubt(reason: string): void {
    this.reason = reason;
    this.cache.invalidateAll();
  }

  state(): ResidentState {
    return { live: this.cache.live, ...(this.reason ? { reason: this.reason } : {}), monitorStarts: this.monitorStarts, ...this.cache.counters };
  }

  private startMonitor(): void {
    this.monitorStarts++;
    const monitor = new NetlinkMonitor(
      {
        onTopics: (topics: Topic[]) => this.cache.invalidate(withImplied(topics)),
        onDoubt: (reason) => this.lost(monitor, reason),
      },
      this.opts.monitor,
    );
    this.monitor = monitor;
    monitor.ready.then(
      () => {
        if (this.monitor !== monitor || this.stopped) return;
        this.liveSince = this.now();
        this.reason = undefined;
        this.cache.setLive(true);
        this.opts.onState?.(true, "kernel change notifications are followed");
      },
      (err: Error) => this.lost(monitor, err.message),
    );
  }

  /** The monitor ended or may have missed changes: full observations until a new one runs. */
  private lost(monitor: NetlinkMonitor, reason: string): void {
    if (this.monitor !== monitor || this.stopped) return;
    monitor.stop();
    this.monitor = undefined;
    const wasLive = this.cache.live;
    this.cache.setLive(false);
    this.reason = reason;
    this.failures = wasLive && this.now() - this.liveSince >= STABLE_MS ? 0 : this.failures + 1;
    const delay = this.failures === 0 ? 0 : Math.min(1000 * 2 ** (this.failures - 1), this.opts.maxRestartDelayMs ?? 60_000);
    this.opts.onState?.(false, `${reason}; full observations until the monitor runs again (in ${Math.round(delay / 1000)} s)`);
    this.restartTimer = setTimeout(() => {
      if (!this.stopped) this.startMonitor();
    }, delay);
    this.restartTimer.unref();
  }
}
