import { describe, expect, it } from "vitest";
import { BoundedQueue } from "./bounded-queue.js";

describe("BoundedQueue", () => {
  it("keeps the newest records and counts what it dropped", () => {
    const q = new BoundedQueue<number>(3);
    for (let i = 1; i <= 5; i++) q.push(i);
    expect(q.length).toBe(3);
    expect(q.dropped).toBe(2);
    expect(q.take(2)).toEqual([3, 4]);
    q.push(6);
    q.push(7);
    expect(q.take(10)).toEqual([5, 6, 7]);
    expect(q.length).toBe(0);
    expect(q.dropped).toBe(2);
  });

  it("refuses a capacity that is not a positive integer", () => {
    expect(() => new BoundedQueue(0)).toThrow(/positive integer/);
  });
});
