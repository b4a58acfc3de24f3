// The forwarding cache: answers in a WireStore under their question key, fresh until their smallest TTL
// runs out, then stale (usable only while upstreams fail, RFC 8767) for staleTtl more seconds, then gone.
// Bounded by entry count and bytes.
import { recordOf, type StoredAnswer, type TtlPolicy } from "./stored-answer.js";
import { WireStore } from "./wire-store.js";

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

/** Arena bytes per entry allowed on average (a typical answer takes 100-250). */
export const BYTES_PER_ENTRY = 512;

export type CacheState = "fresh" | "stale";

export class AnswerCache {
  store: WireStore;
  /** Set by lookup(): what the returned entry is. */
  state: CacheState = "fresh";
  /** Set by lookup() for fresh entries: refresh it now. */
  prefetch = false;

  constructor(private settings: CacheSettings) {
    this.store = new WireStore(settings.maxEntries, settings.maxEntries * BYTES_PER_ENTRY);
  }

  get policy(): TtlPolicy {
    return this.settings;
  }

  get enabled(): boolean {
    return this.settings.enabled;
  }

  get size(): number {
    return this.store.size;
  }

  get bytes(): number {
    return this.store.bytes;
  }

  get evictions(): number {
    return this.store.evictions;
  }

  /** New settings; entries are kept (copied into a resized store when the size changed). */
  configure(settings: CacheSettings): void {
    const resize = settings.maxEntries !== this.settings.maxEntries;
    this.settings = settings;
    if (!settings.enabled) {
      this.store.clear();
      return;
    }
    if (resize) this.store = this.store.resized(settings.maxEntries, settings.maxEntries * BYTES_PER_ENTRY);
  }

  /** The entry's offset in the store, or -1; `state` and `prefetch` say more. */
  lookup(key: Uint8Array, keyLen: number, hash: number, now: number): number {
    const s = this.store;
    let off = s.find(key, 0, keyLen, hash);
    if (off < 0) return -1;
    if (now < s.expiresAt(off)) {
      off = s.hit(off);
      const lifetime = s.lifetime(off);
      // Hot and about to expire: refresh it before clients see a miss (unbound's rule: last 10 %).
      this.prefetch = s.lastHits >= this.settings.prefetchHits && lifetime >= 10 && s.expiresAt(off) - now < lifetime * 100;
      this.state = "fresh";
      return off;
    }
    if (now < s.expiresAt(off) + this.settings.staleTtl * 1000) {
      this.state = "stale";
      return off;
    }
    s.remove(off);
    return -1;
  }

  save(key: string, answer: StoredAnswer): void {
    if (!this.settings.enabled) return;
    const bytes = Buffer.from(key, "latin1");
    this.store.set(bytes, 0, bytes.length, recordOf(answer));
  }

  /** Removes every entry, or those whose key matches; returns how many. */
  flush(match?: (key: Buffer) => boolean): number {
    if (match === undefined) {
      const n = this.store.size;
      this.store.clear();
      return n;
    }
    return this.store.removeWhere(match);
  }
}
