import { describe, expect, it } from "vitest";
import { compareText, sortedBy } from "./artifact.js";

describe("sortedBy", () => {
  it("orders by code point, computing each key once, without changing the input", () => {
    const items = [{ id: "b/2" }, { id: "B/1" }, { id: "a-1" }, { id: "a/1" }, { id: "a" }];
    let calls = 0;
    const out = sortedBy(items, (x) => {
      calls++;
      return x.id;
    });
    expect(out.map((x) => x.id)).toEqual(["B/1", "a", "a-1", "a/1", "b/2"]);
    expect(calls).toBe(items.length);
    expect(items[0]!.id).toBe("b/2");
  });

  it("compareText is a total order consistent with <", () => {
    expect(compareText("a", "b")).toBe(-1);
    expect(compareText("b", "a")).toBe(1);
    expect(compareText("x", "x")).toBe(0);
  });
});
