import { describe, expect, it } from "vitest";
import { RFC_RETRANSMIT, backoffDelay, halfRemainingDelay } from "./retransmit.js";
import { seededRng } from "./seeded-rng.js";

describe("retransmission timing", () => {
  it("doubles from 4 s to a 64 s cap and stays within ±1 s of it over 1000 draws", () => {
    const rng = seededRng(99);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) {
      const attempt = i % 8;
      const nominal = Math.min(4000 * 2 ** attempt, 64000);
      const d = backoffDelay(attempt, RFC_RETRANSMIT, rng);
      expect(Math.abs(d - nominal)).toBeLessThanOrEqual(1000);
      seen.add(d - nominal);
    }
    // Jitter is really random, not a constant offset.
    expect(seen.size).toBeGreaterThan(100);
  });

  it("scales with a configurable base for fast tests", () => {
    expect(backoffDelay(3, { baseMs: 100, maxMs: 400, jitterMs: 0 }, () => 0.5)).toBe(400);
    expect(backoffDelay(0, { baseMs: 100, maxMs: 400, jitterMs: 0 }, () => 0.5)).toBe(100);
  });

  it("waits half the remaining time but at least the minimum", () => {
    expect(halfRemainingDelay(0, 300_000, 60_000)).toBe(150_000);
    expect(halfRemainingDelay(0, 30_000, 60_000)).toBe(60_000);
  });
});
