import { describe, expect, it } from "vitest";
import { EventRing } from "./event-ring.js";
import type { DaemonEvent } from "./types.js";

function ev(seq: number): DaemonEvent {
  return { seq, time: new Date(seq * 1000).toISOString(), topic: "t", severity: "info", resource: "", message: `m${seq}`, attributes: {} };
}

const seqs = (events: DaemonEvent[]): number[] => events.map((e) => e.seq);

describe("EventRing", () => {
  it("keeps only the newest `capacity` events, oldest first", () => {
    const ring = new EventRing(3);
    for (let s = 1; s <= 5; s++) ring.push(ev(s));
    expect(ring.size).toBe(3);
    expect(ring.oldest()?.seq).toBe(3);
    expect(ring.newest()?.seq).toBe(5);
    expect(seqs(ring.after(0))).toEqual([3, 4, 5]);
  });

  it("replays only events after the cursor", () => {
    const ring = new EventRing(10);
    for (let s = 1; s <= 6; s++) ring.push(ev(s));
    expect(seqs(ring.after(4))).toEqual([5, 6]);
    expect(seqs(ring.after(6))).toEqual([]);
    expect(seqs(ring.after(100))).toEqual([]);
  });

  it("finds the cursor position across the wrap point and across seq gaps", () => {
    const ring = new EventRing(4);
    for (const s of [1, 2, 5, 9, 10, 12]) ring.push(ev(s)); // wraps; gaps as after a restart
    expect(seqs(ring.after(0))).toEqual([5, 9, 10, 12]);
    expect(seqs(ring.after(6))).toEqual([9, 10, 12]);
    expect(seqs(ring.after(9))).toEqual([10, 12]);
    expect(seqs(ring.after(11))).toEqual([12]);
  });

  it("rejects a seq that does not grow and a capacity below one", () => {
    const ring = new EventRing(2);
    ring.push(ev(3));
    expect(() => ring.push(ev(3))).toThrow(/does not follow/);
    expect(() => new EventRing(0)).toThrow(RangeError);
  });

  it("is empty before the first push", () => {
    const ring = new EventRing(2);
    expect(ring.oldest()).toBeUndefined();
    expect(ring.newest()).toBeUndefined();
    expect(ring.after(0)).toEqual([]);
  });
});
