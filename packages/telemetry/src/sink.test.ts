import { describe, expect, it } from "vitest";
import type { TelemetryRecord } from "./record.js";
import { Sink, type SinkLimits } from "./sink.js";
import type { Transport } from "./transport/transport.js";

const rec = (i: number, level: TelemetryRecord["level"] = "info"): TelemetryRecord => ({ time: new Date(0).toISOString(), level, kind: "event", daemon: "routerd", instance: "core", message: `m${i}`, attributes: {} });
const limits: SinkLimits = { queueSize: 5, batchSize: 2, flushIntervalMs: 1, sendTimeoutMs: 50, backoffMs: 1, maxBackoffMs: 5 };

/** A transport recording what it got; `hang` makes sends never settle on their own. */
function recorder(opts: { fail?: boolean; hang?: boolean } = {}): Transport & { got: string[] } {
  const got: string[] = [];
  return {
    got,
    send: (records) => {
      if (opts.hang) return new Promise<void>(() => undefined);
      if (opts.fail) return Promise.reject(new Error("connection refused"));
      got.push(...records.map((r) => r.message));
      return Promise.resolve();
    },
    close: () => undefined,
  };
}

describe("Sink", () => {
  it("delivers in order in batches and filters below minLevel", async () => {
    const t = recorder();
    const sink = new Sink("s", "stdout", "info", t, limits);
    sink.publish(rec(1, "debug"));
    for (let i = 2; i <= 4; i++) sink.publish(rec(i));
    await sink.flush();
    expect(t.got).toEqual(["m2", "m3", "m4"]);
    expect(sink.stats()).toMatchObject({ accepted: 3, sent: 3, dropped: 0, buffered: 0, state: "ok" });
  });

  it("a dead receiver costs the batch and the overflow, counted; publish never throws or waits", async () => {
    const sink = new Sink("s", "loki", "debug", recorder({ fail: true }), limits);
    for (let i = 0; i < 20; i++) sink.publish(rec(i));
    await sink.flush();
    const s = sink.stats();
    expect(s.state).toBe("failing");
    expect(s.lastError).toBe("connection refused");
    expect(s.accepted).toBe(20);
    expect(s.dropped + s.buffered + s.sent).toBe(20);
    expect(s.dropped).toBeGreaterThanOrEqual(15);
    sink.close();
  });

  it("a receiver that never answers is cut off by the send timeout", async () => {
    const hang = recorder({ hang: true });
    const sink = new Sink("s", "syslog", "debug", { ...hang, send: (r, ms) => import("./transport/transport.js").then(({ withTimeout }) => withTimeout(hang.send(r, ms), ms, "send")) }, limits);
    sink.publish(rec(1));
    sink.publish(rec(2));
    await sink.flush();
    expect(sink.stats()).toMatchObject({ dropped: 2, failedSends: 1, lastError: "send did not finish within 50 ms" });
    sink.close();
  });
});
