// The forwarding cache: stored answers under their question key, fresh until their smallest TTL runs out,
// then stale (usable only while upstreams fail, RFC 8767) until staleUntil, then gone. Bounded by entry
// count and bytes, least recently used first out.
import { Lru } from "./lru.js";
import type { StoredAnswer, TtlPolicy } from "./stored-answer.js";

export interface CacheSettings extends TtlPolicy {
  enabled: boolean;
  maxEntries: number;
  /** Prefetch an answer hit at least this often once it is within the last tenth of its lifetime. */
  prefetchHits: number;
}

export const DEFAULT_CACHE: CacheSettings = {
  enabled: true,
  maxEntries: 10_000,
  minTtl: 0,
  maxTtl: 86_400,
  negativeTtl: 3_600,
  staleTtl: 86_400,
  prefetchHits: 2,
};

/** Bytes per entry the budget allows on average; a few huge answers cannot crowd out memory. */
const BYTES_PER_ENTRY = 2048;

export type Lookup = { state: "fresh"; entry: StoredAnswer; prefetch: boolean } | { state: "stale"; entry: StoredAnswer } | { state: "miss" };

const MISS: Lookup = { state: "miss" };

export class AnswerCache {
  private readonly lru: Lru<StoredAnswer>;
  evictions = 0;

  constructor(private settings: CacheSettings) {
    this.lru = new Lru<StoredAnswer>(settings.maxEntries, settings.maxEntries * BYTES_PER_ENTRY, () => this.evictions++);
  }

  get policy(): TtlPolicy {
    return this.settings;
  }

  get enabled(): boolean {
    return this.settings.enabled;
  }

  get size(): number {
    return this.lru.size;
  }

  get bytes(): number {
    return this.lru.byteSize;
  }

  configure(settings: CacheSettings): void {
    this.settings = settings;
    if (!settings.enabled) this.lru.clear();
    this.lru.resize(settings.maxEntries, settings.maxEntries * BYTES_PER_ENTRY);
  }

  lookup(key: string, now: number): Lookup {
    const entry = this.lru.get(key);
    if (entry === undefined) return MISS;
    if (now < entry.expiresAt) {
      entry.hits++;
      // Hot and about to expire: refresh it before clients see a miss (unbound's rule: last 10 %).
      const prefetch = entry.hits >= this.settings.prefetchHits && entry.lifetime >= 10 && entry.expiresAt - now < entry.lifetime * 100;
      return { state: "fresh", entry, prefetch };
    }
    if (now < entry.staleUntil) return { state: "stale", entry };
    this.lru.remove(entry);
    return MISS;
  }

  store(entry: StoredAnswer): void {
    if (!this.settings.enabled) return;
    this.lru.set(entry);
  }

  /** Removes every entry, or those whose key starts with `prefix` (a name's wire key). */
  flush(match?: (key: string) => boolean): number {
    if (match === undefined) {
      const n = this.lru.size;
      this.lru.clear();
      return n;
    }
    const doomed = [...this.lru.values()].filter((e) => match(e.key));
    for (const e of doomed) this.lru.remove(e);
    return doomed.length;
  }
}
