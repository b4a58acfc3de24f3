import { describe, expect, it } from "vitest";
import { CONFIG_POLL_MS, nextDueAt, shouldCycle, sleepMs } from "./schedule.js";

/** Runs serve's loop on a simulated clock: how many cycles in `spanMs`, given kicks and config changes. */
function simulate(o: { spanMs: number; intervalMs: number; kicksAt?: number[]; configChangesAt?: number[]; cycleMs?: number }): number[] {
  const cycles: number[] = [];
  const kicks = [...(o.kicksAt ?? [])];
  const changes = [...(o.configChangesAt ?? [])];
  let now = 0;
  let lastCycleAt = 0;
  let seenConfigAt = -1;
  let kicked = true; // serve starts with a cycle
  while (now < o.spanMs) {
    const dueAt = nextDueAt({ lastCycleAt, intervalMs: o.intervalMs, deadlinesAt: [] });
    if (!kicked) {
      const until = now + sleepMs(now, dueAt);
      const kick = kicks[0];
      if (kick !== undefined && kick <= until) {
        now = kick; // a kick wakes the loop early
        kicks.shift();
        kicked = true;
      } else now = until;
      if (now >= o.spanMs) break;
    }
    const changed = changes.some((t) => t <= now && t > seenConfigAt);
    if (!shouldCycle({ kicked, now, dueAt, configChanged: () => changed })) continue;
    if (changed) seenConfigAt = now;
    kicked = false;
    lastCycleAt = now;
    cycles.push(now);
    now += o.cycleMs ?? 100;
  }
  return cycles;
}

describe("serve's schedule", () => {
  it("an idle serve reconciles once per --interval, not on every config poll", () => {
    const cycles = simulate({ spanMs: 10 * 60_000, intervalMs: 30_000 });
    expect(cycles).toHaveLength(20); // 10 minutes / 30 s; it wakes ~600 times to poll the config file
    expect(cycles.slice(0, 3)).toEqual([0, 30_000, 60_000]);
  });

  it("a config change is picked up by the next poll, a kick at once; neither adds more than one cycle", () => {
    const cycles = simulate({ spanMs: 60_000, intervalMs: 30_000, configChangesAt: [12_300], kicksAt: [20_500] });
    expect(cycles).toEqual([0, 13_100, 20_500, 50_500]); // polls at 1.1 s, 2.1 s, ... after the first cycle
  });

  it("sleeps no longer than the config poll, and not at all once a cycle is due", () => {
    expect(sleepMs(1_000, 31_000)).toBe(CONFIG_POLL_MS);
    expect(sleepMs(30_500, 31_000)).toBe(500);
    expect(sleepMs(32_000, 31_000)).toBe(0);
  });

  it("the lease and a pending failback bring the next cycle forward; a past failback never makes cycles back-to-back", () => {
    expect(nextDueAt({ lastCycleAt: 1_000, intervalMs: 30_000, deadlinesAt: [] })).toBe(31_000);
    expect(nextDueAt({ lastCycleAt: 1_000, intervalMs: 30_000, leaseEveryMs: 5_000, deadlinesAt: [] })).toBe(6_000);
    expect(nextDueAt({ lastCycleAt: 1_000, intervalMs: 30_000, deadlinesAt: [4_000, 9_000] })).toBe(4_000);
    expect(nextDueAt({ lastCycleAt: 1_000, intervalMs: 30_000, deadlinesAt: [500] })).toBe(1_010);
  });

  it("a wake-up cycles only when kicked, due, or the config changed", () => {
    const unchanged = () => false;
    expect(shouldCycle({ kicked: false, now: 5_000, dueAt: 31_000, configChanged: unchanged })).toBe(false);
    expect(shouldCycle({ kicked: true, now: 5_000, dueAt: 31_000, configChanged: unchanged })).toBe(true);
    expect(shouldCycle({ kicked: false, now: 31_000, dueAt: 31_000, configChanged: unchanged })).toBe(true);
    expect(shouldCycle({ kicked: false, now: 5_000, dueAt: 31_000, configChanged: () => true })).toBe(true);
  });
});
