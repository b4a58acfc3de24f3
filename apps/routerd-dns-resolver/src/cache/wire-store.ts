// Answers kept outside the JavaScript heap: one preallocated Buffer used as a circular log of records
// (header, key bytes, wire answer, TTL positions) and an open-addressing hash index of offsets in an
// Int32Array. A hit costs a hash probe and a byte comparison, no allocation; an entry costs its bytes plus
// a few index slots instead of several heap objects (about 100 bytes instead of ~700 for an A answer).
// Eviction takes the oldest records first; a hit on an entry in the oldest quarter copies it to the front,
// so what is in use stays (least recently used first out, approximately, as in CLOCK).
// A record holds the answer to exactly one question without that question: the key already says what was
// asked, and every answer carries the client's own spelling of it (its 0x20 case) anyway. The renderer
// puts the client's question back between the stored header and the records (same length, so the stored
// compression pointers and TTL positions still hold).

/** Record header layout (bytes from the record's start). The record's length follows from the lengths in it. */
const HASH = 0; // u32
const KEY_LEN = 4; // u16
const WIRE_LEN = 6; // u16: header and records, without the question
const STORED_AT = 8; // f64 ms
const EXPIRES_AT = 16; // f64 ms (Infinity: never)
const TTL_COUNT = 24; // u16
const HITS = 26; // u16, saturating
const EDE = 28; // u16, 0xffff: none
const FLAGS = 30; // u8
const RCODE = 31; // u8
export const HEADER = 32;
/** Each TTL position: u16 offset in the answer as sent (question included), u32 TTL as stored. */
export const TTL_PAIR = 6;
/** The DNS message header: stored; the question after it is not. */
const DNS_HEADER = 12;

export const FLAG_LIVE = 1;
export const FLAG_AUTHORITATIVE = 2;
export const FLAG_SECURE = 4;
export const FLAG_NEGATIVE = 8;

export interface RecordInput {
  /** The answer: a DNS message with one question. */
  wire: Buffer;
  /** Where the question ends in `wire` (12 when `wire` comes from a record: no question in it). */
  questionEnd: number;
  /** TTL positions, TTL_PAIR bytes each. */
  ttlPairs: Buffer;
  rcode: number;
  flags: number;
  ede: number;
  storedAt: number;
  /** When the answer stops being fresh (ms; Infinity: never). Its lifetime is expiresAt - storedAt. */
  expiresAt: number;
}

/** FNV-1a over key bytes; parseQuery computes the same while it builds the key. */
export function hashKey(bytes: Uint8Array, start: number, len: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < start + len; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const align4 = (n: number): number => (n + 3) & ~3;

/** Bytes a record takes in the arena. */
const recordLength = (keyLen: number, wireLen: number, ttlCount: number): number => align4(HEADER + keyLen + wireLen + ttlCount * TTL_PAIR);

export class WireStore {
  readonly arena: Buffer;
  private index: Int32Array;
  private mask: number;
  private head = 0;
  private tail = 0;
  /** Records occupy [tail, upperEnd) and [0, head) while wrapped; [tail, head) otherwise. */
  private wrapped = false;
  private upperEnd = 0;
  private live = 0;
  private liveBytes = 0;
  evictions = 0;
  /** The hit count of the entry hit() was last called on. */
  lastHits = 0;
  private readonly scratch = Buffer.allocUnsafe(HEADER + 512 + 65_536 + 6 * 1024);

  constructor(
    readonly maxEntries: number,
    maxBytes: number,
  ) {
    this.arena = Buffer.allocUnsafeSlow(align4(Math.max(maxBytes, 64 * 1024)));
    // At most two thirds full: short probe sequences, a smaller table than twice the entries.
    let slots = 1024;
    while (slots < maxEntries * 1.5) slots *= 2;
    this.index = new Int32Array(slots);
    this.mask = slots - 1;
  }

  get size(): number {
    return this.live;
  }

  get bytes(): number {
    return this.liveBytes;
  }

  /** The record offset for this key, or -1. */
  find(key: Uint8Array, keyStart: number, keyLen: number, hash: number): number {
    const a = this.arena;
    for (let i = hash & this.mask; ; i = (i + 1) & this.mask) {
      const slot = this.index[i]!;
      if (slot === 0) return -1;
      const off = slot - 1;
      if (a.readUInt32LE(off + HASH) !== hash || a.readUInt16LE(off + KEY_LEN) !== keyLen) continue;
      let same = true;
      const k = off + HEADER;
      for (let j = 0; j < keyLen; j++) {
        if (a[k + j] !== key[keyStart + j]) {
          same = false;
          break;
        }
      }
      if (same) return off;
    }
  }

  /** Stores (or replaces) the answer for a key; returns its offset, or -1 when it cannot be kept. */
  set(key: Uint8Array, keyStart: number, keyLen: number, r: RecordInput): number {
    const hash = hashKey(key, keyStart, keyLen);
    const body = r.wire.length - r.questionEnd;
    const wireLen = DNS_HEADER + body;
    const ttlCount = r.ttlPairs.length / TTL_PAIR;
    const len = recordLength(keyLen, wireLen, ttlCount);
    const oneQuestion = r.wire.length >= r.questionEnd && r.wire.readUInt16BE(4) === 1;
    if (!oneQuestion || len > this.arena.length / 4 || wireLen > 0xffff || keyLen > 0xffff || ttlCount > 0xffff || r.ede >= 0xffff) return -1;
    const old = this.find(key, keyStart, keyLen, hash);
    if (old >= 0) this.kill(old);
    const off = this.reserve(len);
    const a = this.arena;
    a.writeUInt32LE(hash, off + HASH);
    a.writeUInt16LE(keyLen, off + KEY_LEN);
    a.writeUInt16LE(wireLen, off + WIRE_LEN);
    a.writeDoubleLE(r.storedAt, off + STORED_AT);
    a.writeDoubleLE(r.expiresAt, off + EXPIRES_AT);
    a.writeUInt16LE(ttlCount, off + TTL_COUNT);
    a.writeUInt16LE(0, off + HITS);
    a.writeUInt16LE(r.ede < 0 ? 0xffff : r.ede, off + EDE);
    a[off + FLAGS] = r.flags | FLAG_LIVE;
    a[off + RCODE] = r.rcode;
    a.set(key.subarray(keyStart, keyStart + keyLen), off + HEADER);
    const w = off + HEADER + keyLen;
    r.wire.copy(a, w, 0, DNS_HEADER);
    r.wire.copy(a, w + DNS_HEADER, r.questionEnd);
    r.ttlPairs.copy(a, w + wireLen);
    this.insertSlot(hash, off);
    this.live++;
    this.liveBytes += len;
    while (this.live > this.maxEntries) this.evictOldest();
    return off;
  }

  // Record accessors (the renderer and the cache policy read these).
  storedAt = (off: number): number => this.arena.readDoubleLE(off + STORED_AT);
  expiresAt = (off: number): number => this.arena.readDoubleLE(off + EXPIRES_AT);
  /** Seconds from storing to expiry; 0 for answers that never expire. */
  lifetime = (off: number): number => {
    const ms = this.expiresAt(off) - this.storedAt(off);
    return Number.isFinite(ms) ? Math.round(ms / 1000) : 0;
  };
  flags = (off: number): number => this.arena[off + FLAGS]!;
  rcode = (off: number): number => this.arena[off + RCODE]!;
  ede = (off: number): number => {
    const v = this.arena.readUInt16LE(off + EDE);
    return v === 0xffff ? -1 : v;
  };
  /** The stored answer: the DNS header, then the records (the question is left out, see above). */
  wireStart = (off: number): number => off + HEADER + this.arena.readUInt16LE(off + KEY_LEN);
  wireLen = (off: number): number => this.arena.readUInt16LE(off + WIRE_LEN);
  ttlCount = (off: number): number => this.arena.readUInt16LE(off + TTL_COUNT);
  ttlStart = (off: number): number => this.wireStart(off) + this.wireLen(off);

  private length(off: number): number {
    const a = this.arena;
    return recordLength(a.readUInt16LE(off + KEY_LEN), a.readUInt16LE(off + WIRE_LEN), a.readUInt16LE(off + TTL_COUNT));
  }

  /** Counts a hit (readable in lastHits); returns the (possibly moved) offset: an old entry in use is copied to the front. */
  hit(off: number): number {
    const a = this.arena;
    const hits = Math.min(a.readUInt16LE(off + HITS) + 1, 0xffff);
    a.writeUInt16LE(hits, off + HITS);
    this.lastHits = hits;
    if (!this.inOldestQuarter(off)) return off;
    const len = this.length(off);
    a.copy(this.scratch, 0, off, off + len);
    this.kill(off);
    const moved = this.reserve(len);
    this.scratch.copy(a, moved, 0, len);
    this.insertSlot(a.readUInt32LE(moved + HASH), moved);
    this.live++;
    this.liveBytes += len;
    return moved;
  }

  /** Removes one record (e.g. an expired one found on lookup). */
  remove(off: number): void {
    this.kill(off);
  }

  /** Removes every live record whose key satisfies `match`; returns how many. */
  removeWhere(match: (key: Buffer) => boolean): number {
    let n = 0;
    for (const off of this.liveOffsets()) {
      const key = this.arena.subarray(off + HEADER, off + HEADER + this.arena.readUInt16LE(off + KEY_LEN));
      if (match(key)) {
        this.kill(off);
        n++;
      }
    }
    return n;
  }

  /** A store of another size holding this one's live records (oldest first, so their order stays). */
  resized(maxEntries: number, maxBytes: number): WireStore {
    const next = new WireStore(maxEntries, maxBytes);
    const a = this.arena;
    for (const off of this.liveOffsets()) {
      const keyLen = a.readUInt16LE(off + KEY_LEN);
      const wireStart = off + HEADER + keyLen;
      const wireLen = a.readUInt16LE(off + WIRE_LEN);
      const ttlEnd = wireStart + wireLen + a.readUInt16LE(off + TTL_COUNT) * TTL_PAIR;
      next.set(a, off + HEADER, keyLen, {
        wire: a.subarray(wireStart, wireStart + wireLen),
        questionEnd: DNS_HEADER,
        ttlPairs: a.subarray(wireStart + wireLen, ttlEnd),
        rcode: this.rcode(off),
        flags: this.flags(off) & ~FLAG_LIVE,
        ede: this.ede(off),
        storedAt: this.storedAt(off),
        expiresAt: this.expiresAt(off),
      });
    }
    return next;
  }

  clear(): void {
    this.index.fill(0);
    this.head = this.tail = this.upperEnd = this.live = this.liveBytes = 0;
    this.wrapped = false;
  }

  /** Offsets of live records, oldest first. */
  private liveOffsets(): number[] {
    const out: number[] = [];
    const walk = (from: number, to: number): void => {
      for (let off = from; off < to && to - off >= HEADER; off += this.length(off)) if (this.arena[off + FLAGS]! & FLAG_LIVE) out.push(off);
    };
    if (this.wrapped) {
      walk(this.tail, this.upperEnd);
      walk(0, this.head);
    } else {
      walk(this.tail, this.head);
    }
    return out;
  }

  private inOldestQuarter(off: number): boolean {
    const used = this.wrapped ? this.upperEnd - this.tail + this.head : this.head - this.tail;
    const age = off >= this.tail ? off - this.tail : this.upperEnd - this.tail + off;
    return age < used / 4 && used > this.arena.length / 2;
  }

  /** Makes room for `len` bytes at the head, evicting the oldest records; returns the offset. */
  private reserve(len: number): number {
    for (;;) {
      if (!this.wrapped) {
        if (this.head + len <= this.arena.length) break;
        // Wrap around; the upper segment ends where the last record ends.
        if (this.tail === this.head) {
          this.head = this.tail = 0;
          continue;
        }
        this.wrapped = true;
        this.upperEnd = this.head;
        this.head = 0;
        continue;
      }
      if (this.head + len <= this.tail) break;
      this.evictOldest();
    }
    const off = this.head;
    this.head += len;
    return off;
  }

  /** Drops the record at the tail (live or already dead) and advances the tail. */
  private evictOldest(): void {
    if (!this.wrapped && this.tail === this.head) return;
    const off = this.tail;
    const len = this.length(off);
    if (this.arena[off + FLAGS]! & FLAG_LIVE) {
      this.kill(off);
      this.evictions++;
    }
    this.tail += len;
    if (this.wrapped && this.tail >= this.upperEnd) {
      this.tail = 0;
      this.wrapped = false;
    }
    if (!this.wrapped && this.tail === this.head) this.head = this.tail = 0;
  }

  /** Marks a record dead and takes it out of the index (its bytes are reclaimed when the tail passes). */
  private kill(off: number): void {
    const a = this.arena;
    if (!(a[off + FLAGS]! & FLAG_LIVE)) return;
    a[off + FLAGS] = a[off + FLAGS]! & ~FLAG_LIVE;
    this.live--;
    this.liveBytes -= this.length(off);
    const hash = a.readUInt32LE(off + HASH);
    let i = hash & this.mask;
    while (this.index[i] !== off + 1) {
      if (this.index[i] === 0) return;
      i = (i + 1) & this.mask;
    }
    // Backward-shift deletion keeps linear probing correct without tombstones.
    this.index[i] = 0;
    for (let j = (i + 1) & this.mask; this.index[j] !== 0; j = (j + 1) & this.mask) {
      const home = a.readUInt32LE(this.index[j]! - 1 + HASH) & this.mask;
      const between = i <= j ? home > i && home <= j : home > i || home <= j;
      if (between) continue;
      this.index[i] = this.index[j]!;
      this.index[j] = 0;
      i = j;
    }
  }

  private insertSlot(hash: number, off: number): void {
    let i = hash & this.mask;
    while (this.index[i] !== 0) i = (i + 1) & this.mask;
    this.index[i] = off + 1;
  }
}
