import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EventBus, matchesTopics } from "./event-bus.js";
import { EventLog, recoverEvents } from "./event-log.js";
import type { DaemonEvent } from "./types.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("EventBus", () => {
  it("numbers events from the recovered seq and stringifies attributes", () => {
    const bus = new EventBus({ ringSize: 10, lastSeq: 41, now: () => new Date("2026-05-01T00:00:00Z") });
    const e = bus.emit({ topic: "dhcpv4.lease.bound", message: "bound", resource: "wan", attributes: { lease: 3600, renew: true } });
    expect(e).toEqual({
      seq: 42,
      time: "2026-05-01T00:00:00.000Z",
      topic: "dhcpv4.lease.bound",
      severity: "info",
      resource: "wan",
      message: "bound",
      attributes: { lease: "3600", renew: "true" },
    });
    expect(bus.lastSeq).toBe(42);
  });

  it("replays from a cursor and then delivers live events to subscribers", () => {
    const bus = new EventBus({ ringSize: 3 });
    for (let i = 0; i < 5; i++) bus.emit({ topic: "t", message: String(i) });
    expect(bus.replay(2).map((e) => e.seq)).toEqual([3, 4, 5]); // ring holds 3..5
    expect(bus.replay(4).map((e) => e.seq)).toEqual([5]);
    const seen: number[] = [];
    const unsubscribe = bus.subscribe((e) => seen.push(e.seq));
    bus.emit({ topic: "t", message: "live" });
    unsubscribe();
    bus.emit({ topic: "t", message: "after" });
    expect(seen).toEqual([6]);
    expect(bus.subscriberCount).toBe(0);
  });

  it("seeds the ring from events before a restart so a cursor from then still replays", () => {
    const dir = mkdtempSync(join(tmpdir(), "rd-eventbus-"));
    dirs.push(dir);
    const log1 = new EventLog(dir);
    const first = new EventBus({ ringSize: 100, log: log1 });
    for (let i = 0; i < 4; i++) first.emit({ topic: "t", message: String(i) });
    log1.close();

    const recovered = recoverEvents(dir, 3, 100);
    const log2 = new EventLog(dir);
    const second = new EventBus({ ringSize: 100, lastSeq: recovered.lastSeq, seed: recovered.recent, log: log2 });
    const next = second.emit({ topic: "t", message: "after restart" });
    log2.close();
    expect(next.seq).toBe(5);
    expect(second.replay(2).map((e) => e.message)).toEqual(["2", "3", "after restart"]);
  });

  it("keeps delivering when the log or a listener fails, and reports both", () => {
    const dir = mkdtempSync(join(tmpdir(), "rd-eventbus-"));
    dirs.push(dir);
    const log = new EventLog(join(dir, "gone"));
    log.close();
    rmSync(join(dir, "gone"), { recursive: true }); // the next append cannot reopen the file
    const errors: string[] = [];
    const bus = new EventBus({ ringSize: 5, log, onError: (_err, where) => errors.push(where) });
    const seen: DaemonEvent[] = [];
    bus.subscribe(() => {
      throw new Error("listener bug");
    });
    bus.subscribe((e) => seen.push(e));
    bus.emit({ topic: "t", message: "x" });
    expect(errors).toEqual(["log", "listener"]);
    expect(seen.map((e) => e.seq)).toEqual([1]);
    expect(bus.replay(0)).toHaveLength(1);
  });
});

describe("matchesTopics", () => {
  const e = { topic: "dhcpv4.lease.bound" } as DaemonEvent;
  it("matches by prefix; no prefixes match everything", () => {
    expect(matchesTopics(e, [])).toBe(true);
    expect(matchesTopics(e, ["dhcpv4.lease"])).toBe(true);
    expect(matchesTopics(e, ["daemon.", "dhcpv4."])).toBe(true);
    expect(matchesTopics(e, ["dhcpv6."])).toBe(false);
  });
});
