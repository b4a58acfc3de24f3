import { getHeapStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { MemorySettler } from "./settle.js";

describe("MemorySettler", () => {
  const opts = { intervalMs: 1000, quietQps: 10, growthBytes: 4 << 20 };

  it("collects once the heap grew and traffic went quiet, and not while busy", () => {
    let queries = 0;
    const s = new MemorySettler(() => queries, opts);
    // Garbage the young generation promotes: kept alive across the look, dropped before the collection.
    let keep: number[][] | undefined = Array.from({ length: 200_000 }, (_, i) => [i, i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7]);
    expect(keep.length).toBe(200_000);
    queries += 50_000; // busy: 50k queries in the last interval
    expect(s.check()).toBe(false);
    keep = undefined;
    const before = getHeapStatistics().used_heap_size;
    expect(s.check()).toBe(true); // quiet now, and the heap grew
    expect(s.settles).toBe(1);
    expect(getHeapStatistics().used_heap_size).toBeLessThan(before);
    // Nothing grew since: no second collection.
    expect(s.check()).toBe(false);
  });
});
