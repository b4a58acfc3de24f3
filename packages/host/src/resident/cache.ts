// The bookkeeping of a resident view of the kernel: which observations are still valid. Pure (a clock is
// passed in): no I/O, no netlink; the monitor and the observers live elsewhere.
//
// Every kept observation covers some topics (links, IPv4 routes, ...). A change notification, an apply of
// routerd's own, or any doubt bumps the version of the topics it concerns; an observation is reused only while
// every version it was made under is unchanged, the feed is live, and it is younger than the resync period.
// An observation that was running while its topics changed is used by the run that asked for it but not kept:
// the next run reads again.

/** The kernel object families whose change notifications keep observations valid. */
export type Topic = "link" | "ipv4.address" | "ipv6.address" | "ipv4.route" | "ipv6.route" | "rule";
export const TOPICS: readonly Topic[] = ["link", "ipv4.address", "ipv6.address", "ipv4.route", "ipv6.route", "rule"];

/**
 * What else a change of one topic may have changed without a notification of its own: the kernel flushes
 * IPv4 routes of a link that goes down, or of an address that is removed, silently.
 */
export const IMPLIES: Readonly<Record<Topic, readonly Topic[]>> = {
  link: ["link", "ipv4.address", "ipv6.address", "ipv4.route", "ipv6.route"],
  "ipv4.address": ["ipv4.address", "ipv4.route"],
  "ipv6.address": ["ipv6.address", "ipv6.route"],
  "ipv4.route": ["ipv4.route"],
  "ipv6.route": ["ipv6.route"],
  rule: ["rule"],
};

export function withImplied(topics: Iterable<Topic>): Set<Topic> {
  const out = new Set<Topic>();
  for (const t of topics) for (const i of IMPLIES[t]) out.add(i);
  return out;
}

interface Kept {
  value: unknown;
  /** The versions of its topics (in order) and the cache epoch when its observation started. */
  versions: number[];
  epoch: number;
  at: number;
}

interface Running {
  promise: Promise<unknown>;
  versions: number[];
  epoch: number;
}

export interface CacheCounters {
  /** Observations answered from what was kept. */
  hits: number;
  /** Observations that ran (the feed was not live, the topics changed, the resync period passed, or first use). */
  reads: number;
  /** Times everything was thrown away (a monitor that ended or overflowed, a failed apply, an operator's request). */
  resyncs: number;
}

export class TopicCache {
  private readonly versions = new Map<Topic, number>(TOPICS.map((t) => [t, 0]));
  private readonly kept = new Map<string, Kept>();
  private readonly running = new Map<string, Running>();
  private epoch = 0;
  private isLive = false;
  readonly counters: CacheCounters = { hits: 0, reads: 0, resyncs: 0 };

  constructor(private readonly opts: { resyncEveryMs: number; now: () => number }) {}

  /** Whether change notifications are arriving: only then is anything reused. Going live or not starts afresh. */
  get live(): boolean {
    return this.isLive;
  }

  setLive(live: boolean): void {
    if (live === this.isLive) return;
    this.isLive = live;
    this.invalidateAll();
  }

  /** These topics changed (a notification, or routerd changed them): what was read of them is stale. */
  invalidate(topics: Iterable<Topic>): void {
    for (const t of topics) this.versions.set(t, this.versions.get(t)! + 1);
  }

  /** Nothing kept is trusted any more. */
  invalidateAll(): void {
    this.epoch++;
    this.kept.clear();
    this.counters.resyncs++;
  }

  /** The kept value of `key` while it is valid; otherwise `load()`, kept if nothing changed meanwhile. */
  read<T>(key: string, topics: readonly Topic[], load: () => Promise<T>): Promise<T> {
    const now = this.opts.now();
    const kept = this.kept.get(key);
    if (kept && this.isLive && this.current(kept, topics) && now - kept.at < this.opts.resyncEveryMs) {
      this.counters.hits++;
      return Promise.resolve(kept.value as T);
    }
    // A read of the same topics already under way, started after the last change, answers this one too.
    const running = this.running.get(key);
    if (running && this.current(running, topics)) return running.promise as Promise<T>;
    this.counters.reads++;
    const started: Running = { promise: undefined as unknown as Promise<unknown>, versions: topics.map((t) => this.versions.get(t)!), epoch: this.epoch };
    const wasLive = this.isLive;
    started.promise = load().then(
      (value) => {
        if (this.running.get(key) === started) this.running.delete(key);
        if (wasLive && this.isLive && this.current(started, topics)) this.kept.set(key, { value, versions: started.versions, epoch: started.epoch, at: now });
        return value;
      },
      (err: unknown) => {
        if (this.running.get(key) === started) this.running.delete(key);
        throw err; // a failed observation is never kept: the next run reads again
      },
    );
    this.running.set(key, started);
    return started.promise as Promise<T>;
  }

  private current(r: { versions: number[]; epoch: number }, topics: readonly Topic[]): boolean {
    return r.epoch === this.epoch && topics.every((t, i) => this.versions.get(t) === r.versions[i]);
  }
}
