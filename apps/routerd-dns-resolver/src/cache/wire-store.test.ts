// The arena store against a plain Map model under random operations (wrap-around, eviction, replacement,
// deletion with backward shift), plus its bounds.
import { describe, expect, it } from "vitest";
import { below, seeded } from "../test-support/random.js";
import { hashKey, WireStore, type RecordInput } from "./wire-store.js";

/** A message: header (first byte n, one question), the question "k." A IN, then `size` bytes of n. */
function wireOf(n: number, size: number): Buffer {
  const header = Buffer.alloc(12);
  header[0] = n & 0xff;
  header.writeUInt16BE(1, 4);
  return Buffer.concat([header, Buffer.from([1, 0x6b, 0, 0, 1, 0, 1]), Buffer.alloc(size, n & 0xff)]);
}
const rec = (n: number, size: number): RecordInput => ({
  wire: wireOf(n, size),
  questionEnd: 19,
  ttlPairs: Buffer.from([19, 0, n & 0xff, 0, 0, 0]),
  rcode: n % 6,
  flags: 0,
  ede: -1,
  storedAt: n,
  expiresAt: n + 1000,
});
const key = (n: number): Buffer => Buffer.from(`k${n}`, "latin1");

function get(s: WireStore, n: number): number {
  const k = key(n);
  return s.find(k, 0, k.length, hashKey(k, 0, k.length));
}

describe("WireStore", () => {
  it("finds what it holds, by key bytes, and returns the stored fields (the answer without its question)", () => {
    const s = new WireStore(100, 64 * 1024);
    for (let i = 0; i < 50; i++) s.set(key(i), 0, key(i).length, rec(i, 40 + i));
    for (let i = 0; i < 50; i++) {
      const off = get(s, i);
      expect(off).toBeGreaterThanOrEqual(0);
      expect([s.rcode(off), s.storedAt(off), s.expiresAt(off), s.lifetime(off), s.wireLen(off)]).toEqual([i % 6, i, i + 1000, 1, 12 + 40 + i]);
      const w = s.wireStart(off);
      // The header, then the records straight after it.
      expect([s.arena[w], s.arena.readUInt16BE(w + 4), s.arena[w + 12], s.arena[w + s.wireLen(off) - 1]]).toEqual([i, 1, i, i]);
    }
    expect(get(s, 999)).toBe(-1);
    expect(s.size).toBe(50);
  });

  it("refuses what it cannot render back (no question, an EDE past u16); keeps answers that never expire", () => {
    const s = new WireStore(100, 64 * 1024);
    const noQuestion = wireOf(1, 10);
    noQuestion.writeUInt16BE(0, 4);
    expect(s.set(key(1), 0, 2, { ...rec(1, 10), wire: noQuestion, questionEnd: 12 })).toBe(-1);
    expect(s.set(key(2), 0, 2, { ...rec(2, 10), ede: 0xffff })).toBe(-1);
    expect(s.set(key(3), 0, 2, { ...rec(3, 10), expiresAt: Infinity })).toBeGreaterThanOrEqual(0);
    expect(s.lifetime(get(s, 3))).toBe(0);
    expect(s.size).toBe(1);
  });

  it("agrees with a Map model under 10000 random sets, replacements, removals and promotions", () => {
    const rng = seeded(2024);
    const s = new WireStore(300, 64 * 1024);
    const model = new Map<number, number>(); // key → storedAt marker
    for (let step = 0; step < 10_000; step++) {
      const n = below(rng, 600);
      const op = below(rng, 10);
      if (op < 6) {
        s.set(key(n), 0, key(n).length, { ...rec(n, 20 + below(rng, 200)), storedAt: step });
        model.set(n, step);
      } else if (op < 8) {
        const off = get(s, n);
        if (off >= 0) s.hit(off);
      } else {
        const off = get(s, n);
        if (off >= 0) s.remove(off);
        model.delete(n);
      }
      // Whatever the store still holds must be the latest version; it may have evicted others.
      if (step % 251 === 0) {
        for (let k = 0; k < 600; k++) {
          const off = get(s, k);
          if (off >= 0) expect(s.storedAt(off)).toBe(model.get(k));
        }
      }
    }
    expect(s.size).toBeLessThanOrEqual(300);
    expect(s.evictions).toBeGreaterThan(0);
    let live = 0;
    for (let k = 0; k < 600; k++) if (get(s, k) >= 0) live++;
    expect(live).toBe(s.size);
  }, 60_000);

  it("keeps entries that are used over ones that are not (approximately LRU)", () => {
    const s = new WireStore(1000, 64 * 1024);
    for (let i = 0; i < 2000; i++) {
      s.set(key(i), 0, key(i).length, rec(i, 100));
      // Key 0 is read all the time; it must survive the churn.
      const off = get(s, 0);
      if (off >= 0) s.hit(off);
    }
    expect(get(s, 0)).toBeGreaterThanOrEqual(0);
    expect(get(s, 1)).toBe(-1);
    expect(s.bytes).toBeLessThanOrEqual(64 * 1024);
  });

  it("moves its entries into a resized store, oldest first", () => {
    const s = new WireStore(100, 64 * 1024);
    for (let i = 0; i < 80; i++) s.set(key(i), 0, key(i).length, rec(i, 50));
    const small = s.resized(20, 32 * 1024);
    expect(small.size).toBe(20);
    expect(get(small, 79)).toBeGreaterThanOrEqual(0);
    expect(get(small, 0)).toBe(-1);
    expect(small.removeWhere((k) => k.toString("latin1").startsWith("k7"))).toBe(10);
  });
});
