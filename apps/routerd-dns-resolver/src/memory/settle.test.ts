import { getHeapStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { MemorySettler } from "./settle.js";

const MB = 1 << 20;

describe("MemorySettler", () => {
  it("collects once the process grew and traffic went quiet; not while busy, not without growth", () => {
    let queries = 0;
    let rss = 100 * MB;
    let trims = 0;
    const s = new MemorySettler(() => queries, { intervalMs: 1000, quietQps: 10, growthBytes: 8 * MB, rss: () => rss, trim: () => trims++ });
    // Garbage a burst leaves behind: alive during the busy look, dropped before the quiet one.
    let burst: number[][] | undefined = Array.from({ length: 200_000 }, (_, i) => [i, i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7]);
    expect(burst.length).toBe(200_000);
    queries += 50_000;
    rss += 30 * MB;
    expect(s.check()).toBe(false); // busy
    burst = undefined;
    const heapBefore = getHeapStatistics().used_heap_size;
    expect(s.check()).toBe(true); // quiet, 30 MB grown
    expect(s.settles).toBe(1);
    // The C heap's free pages go back after the collection.
    expect(trims).toBe(1);
    // A real full collection ran: the burst's garbage is gone.
    expect(getHeapStatistics().used_heap_size).toBeLessThan(heapBefore - 8 * MB);
    // Quiet, but nothing grew since: no second collection.
    expect(s.check()).toBe(false);
    rss += 4 * MB;
    expect(s.check()).toBe(false);
    expect(s.settles).toBe(1);
    expect(trims).toBe(1);
  });
});
