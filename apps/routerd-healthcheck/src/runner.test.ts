import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ProbeConfig } from "./config.js";
import type { ProbeFn, ProbeOutcome } from "./probes/outcome.js";
import { ProbeRunner, type ProbeResultRecord } from "./runner.js";

const T0 = Date.parse("2025-01-01T00:00:00Z");
const config: ProbeConfig = { name: "r", type: "tcp", target: "192.0.2.1", port: 1, intervalMs: 1000, timeoutMs: 400, healthyThreshold: 1, unhealthyThreshold: 1 };

/** A probe that answers after `ms` (or honours the abort), recording when each attempt started. */
function scripted(ms: number, outcome: ProbeOutcome = { ok: true, latencyMs: ms }) {
  const starts: number[] = [];
  const aborted: number[] = [];
  const fn: ProbeFn = (_p, signal) =>
    new Promise((resolve) => {
      starts.push(Date.now() - T0);
      const timer = setTimeout(() => resolve(outcome), ms);
      signal.addEventListener("abort", () => {
        aborted.push(Date.now() - T0);
        clearTimeout(timer);
        resolve({ ok: false, reason: "Timeout", error: "aborted" });
      });
    });
  return { fn, starts, aborted };
}

function collect(): { results: ProbeResultRecord[]; onResult: (r: ProbeResultRecord) => void } {
  const results: ProbeResultRecord[] = [];
  return { results, onResult: (r) => void results.push(r) };
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
});

describe("ProbeRunner", () => {
  it("spaces attempts start to start, whatever each one takes", async () => {
    const p = scripted(300);
    const { results, onResult } = collect();
    const runner = new ProbeRunner(config, { probe: p.fn, onResult });
    runner.start(0);
    await vi.advanceTimersByTimeAsync(3100);
    runner.stop();
    expect(p.starts).toEqual([0, 1000, 2000, 3000]);
    expect(results.map((r) => [r.time, r.ok, r.reason])).toEqual([
      [new Date(T0).toISOString(), true, "Succeeded"],
      [new Date(T0 + 1000).toISOString(), true, "Succeeded"],
      [new Date(T0 + 2000).toISOString(), true, "Succeeded"],
    ]);
  });

  it("aborts an attempt at timeoutMs", async () => {
    const p = scripted(5000);
    const { results, onResult } = collect();
    const runner = new ProbeRunner(config, { probe: p.fn, onResult });
    runner.start(0);
    await vi.advanceTimersByTimeAsync(1500);
    runner.stop();
    expect(p.aborted).toEqual([400, 1400]);
    expect(results[0]).toMatchObject({ ok: false, reason: "Timeout" });
    expect(p.starts).toEqual([0, 1000]);
  });

  it("abandons a probe that ignores the abort after the grace period, and keeps its schedule", async () => {
    const starts: number[] = [];
    const stuck: ProbeFn = () => {
      starts.push(Date.now() - T0);
      return new Promise(() => undefined);
    };
    const { results, onResult } = collect();
    const runner = new ProbeRunner({ ...config, intervalMs: 2000 }, { probe: stuck, onResult, graceMs: 100 });
    runner.start(0);
    await vi.advanceTimersByTimeAsync(4600);
    runner.stop();
    expect(starts).toEqual([0, 2000, 4000]);
    expect(results.map((r) => [Date.parse(r.time) - T0, r.reason, r.error])).toEqual([
      [0, "Timeout", "no answer within 400 ms"],
      [2000, "Timeout", "no answer within 400 ms"],
      [4000, "Timeout", "no answer within 400 ms"],
    ]);
  });

  it("records a probe that throws as a failure and carries on", async () => {
    const { results, onResult } = collect();
    const thrower: ProbeFn = () => {
      throw Object.assign(new Error("boom"), { code: "EPERM" });
    };
    const runner = new ProbeRunner(config, { probe: thrower, onResult });
    runner.start(0);
    await vi.advanceTimersByTimeAsync(1100);
    runner.stop();
    expect(results.map((r) => [r.ok, r.reason, r.error])).toEqual([
      [false, "LocalError", "boom"],
      [false, "LocalError", "boom"],
    ]);
  });

  it("keeps going when the result handler throws", async () => {
    const p = scripted(10);
    const errors: unknown[] = [];
    const runner = new ProbeRunner(config, {
      probe: p.fn,
      onResult: () => {
        throw new Error("handler bug");
      },
      onError: (err) => errors.push(err),
    });
    runner.start(0);
    await vi.advanceTimersByTimeAsync(2100);
    runner.stop();
    expect(p.starts).toEqual([0, 1000, 2000]);
    expect(errors).toHaveLength(3);
  });

  it("stop() aborts the attempt in flight and drops its result", async () => {
    const p = scripted(300);
    const { results, onResult } = collect();
    const runner = new ProbeRunner(config, { probe: p.fn, onResult });
    runner.start(0);
    await vi.advanceTimersByTimeAsync(100);
    runner.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(p.aborted).toEqual([100]);
    expect(results).toEqual([]);
    expect(p.starts).toEqual([0]);
    expect(runner.running).toBe(false);
  });

  it("a shortened interval applies to the wait in progress", async () => {
    const p = scripted(10);
    const { onResult } = collect();
    const runner = new ProbeRunner({ ...config, intervalMs: 10_000, timeoutMs: 100 }, { probe: p.fn, onResult });
    runner.start(0);
    await vi.advanceTimersByTimeAsync(500);
    runner.update({ ...config, intervalMs: 1000, timeoutMs: 100 });
    await vi.advanceTimersByTimeAsync(2100);
    runner.stop();
    expect(p.starts).toEqual([0, 1500, 2500]);
  });
});
