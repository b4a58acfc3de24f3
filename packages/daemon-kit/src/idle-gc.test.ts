import { getHeapStatistics } from "node:v8";
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_IDLE_GC, IdleCollector, fullCollection, idleCollectionDue, idleGcSetting, oldGenerationUsed } from "./idle-gc.js";

const MB = 1 << 20;

describe("idleCollectionDue", () => {
  const o = { intervalMs: 1000, maxUtilization: 0.25, minGrowthBytes: MB, quietMs: 100 };
  it.each([
    { utilization: 0.02, oldUsed: 12 * MB, oldUsedAfterLast: 10 * MB, due: true, why: "idle and grown" },
    { utilization: 0.25, oldUsed: 11 * MB, oldUsedAfterLast: 10 * MB, due: true, why: "at the limits" },
    { utilization: 0.6, oldUsed: 30 * MB, oldUsedAfterLast: 10 * MB, due: false, why: "busy" },
    { utilization: 0.0, oldUsed: 10.5 * MB, oldUsedAfterLast: 10 * MB, due: false, why: "nothing to collect" },
    { utilization: 0.0, oldUsed: 9 * MB, oldUsedAfterLast: 10 * MB, due: false, why: "V8 collected since" },
  ])("$why", ({ due, ...look }) => expect(idleCollectionDue(look, o)).toBe(due));

  it("defaults: once a minute, idle below a quarter busy (and over the last second), 256 KiB grown", () => {
    expect(DEFAULT_IDLE_GC).toEqual({ intervalMs: 60_000, maxUtilization: 0.25, minGrowthBytes: 256 << 10, quietMs: 1000 });
  });
});

describe("idleGcSetting", () => {
  it("is on by default, off with ROUTERD_IDLE_GC=0, and a caller's false wins", () => {
    expect(idleGcSetting({})).toEqual(DEFAULT_IDLE_GC);
    expect(idleGcSetting({ ROUTERD_IDLE_GC: "0" })).toBe(false);
    expect(idleGcSetting({ ROUTERD_IDLE_GC: "1" }, false)).toBe(false);
  });
});

describe("IdleCollector", () => {
  it("runs a real full collection when idle and the heap grew; not while busy", () => {
    let utilization = 0.9;
    const collector = new IdleCollector(DEFAULT_IDLE_GC, {
      elu: () => ({ idle: 0, active: 0, utilization }),
      oldUsed: oldGenerationUsed,
      gc: fullCollection,
      now: () => performance.now(),
    });
    let garbage: number[][] | undefined = Array.from({ length: 200_000 }, (_, i) => [i, i + 1, i + 2, i + 3]);
    expect(garbage.length).toBe(200_000);
    expect(collector.check()).toBe(false); // busy
    garbage = undefined;
    utilization = 0.01;
    const before = getHeapStatistics().used_heap_size;
    expect(collector.check()).toBe(true);
    expect(collector.collections).toBe(1);
    expect(collector.collectMs).toBeGreaterThanOrEqual(0);
    expect(getHeapStatistics().used_heap_size).toBeLessThan(before - 4 * MB);
    // Idle, but nothing grew since: no second collection.
    expect(collector.check()).toBe(false);
    expect(collector.collections).toBe(1);
  });

  it("does not count young garbage as growth: short-lived objects alone call for no collection", () => {
    const collector = new IdleCollector(DEFAULT_IDLE_GC, {
      elu: () => ({ idle: 0, active: 0, utilization: 0 }),
      oldUsed: oldGenerationUsed,
      gc: fullCollection,
      now: () => performance.now(),
    });
    collector.collect(); // start from a collected heap
    const heapBefore = getHeapStatistics().used_heap_size;
    let sum = 0;
    // ~1.5 MB of objects that die at once: the whole heap grows, the old generation does not.
    for (let i = 0; i < 20_000; i++) sum += [i, i + 1, { i }].length;
    expect(sum).toBe(60_000);
    expect(getHeapStatistics().used_heap_size - heapBefore).toBeGreaterThan(DEFAULT_IDLE_GC.minGrowthBytes);
    expect(collector.check()).toBe(false);
    expect(collector.collections).toBe(1);
  });

  it("started: collects once an interval was idle and the second after it too; not when that second is busy", () => {
    vi.useFakeTimers();
    try {
      let utilization = 0;
      let heap = 10 * MB;
      let collections = 0;
      const collector = new IdleCollector(
        { intervalMs: 60_000, maxUtilization: 0.25, minGrowthBytes: MB, quietMs: 1000 },
        { elu: () => ({ idle: 0, active: 0, utilization }), oldUsed: () => heap, gc: () => () => collections++, now: () => 0 },
      ).start();
      heap = 20 * MB;
      vi.advanceTimersByTime(60_000); // due: idle minute, 10 MB grown
      utilization = 0.9; // a burst starts in the quiet second
      vi.advanceTimersByTime(1000);
      expect(collections).toBe(0);
      utilization = 0;
      vi.advanceTimersByTime(60_000 + 1000);
      expect(collections).toBe(1);
      collector.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});
