import { describe, expect, it } from "vitest";
import { MAX_CHILDREN, Operation } from "./span.js";

describe("Operation", () => {
  it("times an operation: a child span per step, attributes merged, an error when it failed", () => {
    let t = 1000;
    const op = new Operation("dhcpv4.acquire", { "routerd.instance": "wan" }, () => t);
    t = 1010;
    op.step("selecting");
    t = 1025;
    op.step("requesting");
    t = 1030;
    expect(op.finish({ "dhcpv4.address": "192.0.2.10/24" })).toEqual({
      name: "dhcpv4.acquire",
      start: 1000,
      end: 1030,
      attributes: { "routerd.instance": "wan", "dhcpv4.address": "192.0.2.10/24" },
      children: [
        { name: "selecting", start: 1000, end: 1010 },
        { name: "requesting", start: 1010, end: 1025 },
      ],
    });
    expect(op.finish({}, "ended in idle")).toMatchObject({ error: "ended in idle" });
  });

  it("takes an explicit start and keeps a bounded number of children", () => {
    const op = new Operation("x", {}, () => 50, 20);
    for (let i = 0; i < MAX_CHILDREN + 10; i++) op.step(`s${i}`);
    const span = op.finish();
    expect(span).toMatchObject({ start: 20, end: 50 });
    expect(span.children).toHaveLength(MAX_CHILDREN);
  });
});
