import { describe, expect, it } from "vitest";
import { findCondition, removeCondition, setCondition } from "./conditions.js";

const t0 = new Date("2026-01-01T00:00:00.000Z");
const t1 = new Date("2026-01-01T00:01:00.000Z");
const t2 = new Date("2026-01-01T00:02:00.000Z");

describe("setCondition", () => {
  it("adds a new type as a transition stamped now", () => {
    const { list, change } = setCondition([], { type: "Bound", status: "True", reason: "LeaseAcquired" }, t0);
    expect(list).toEqual([{ type: "Bound", status: "True", reason: "LeaseAcquired", message: "", lastTransitionTime: t0.toISOString() }]);
    expect(change?.transitioned).toBe(true);
    expect(change?.previous).toBeUndefined();
  });

  it("keeps lastTransitionTime when only reason or message change", () => {
    const first = setCondition([], { type: "Bound", status: "True", reason: "LeaseAcquired" }, t0).list;
    const { list, change } = setCondition(first, { type: "Bound", status: "True", reason: "LeaseRenewed", message: "T1 passed" }, t1);
    expect(findCondition(list, "Bound")).toMatchObject({ reason: "LeaseRenewed", message: "T1 passed", lastTransitionTime: t0.toISOString() });
    expect(change?.transitioned).toBe(false);
    expect(change?.previous?.reason).toBe("LeaseAcquired");
  });

  it("moves lastTransitionTime when status changes", () => {
    let list = setCondition([], { type: "Bound", status: "True" }, t0).list;
    list = setCondition(list, { type: "Bound", status: "True", reason: "x" }, t1).list;
    const result = setCondition(list, { type: "Bound", status: "False", reason: "LeaseExpired" }, t2);
    expect(findCondition(result.list, "Bound")?.lastTransitionTime).toBe(t2.toISOString());
    expect(result.change).toMatchObject({ transitioned: true, previous: { status: "True" } });
  });

  it("reports no change when nothing differs", () => {
    const first = setCondition([], { type: "Ready", status: "Unknown", reason: "Probing" }, t0).list;
    const { list, change } = setCondition(first, { type: "Ready", status: "Unknown", reason: "Probing" }, t1);
    expect(change).toBeUndefined();
    expect(list).toEqual(first);
  });

  it("keeps other types in place and does not mutate its input", () => {
    const a = setCondition([], { type: "A", status: "True" }, t0).list;
    const ab = setCondition(a, { type: "B", status: "False" }, t0).list;
    const changed = setCondition(ab, { type: "A", status: "False" }, t1).list;
    expect(changed.map((c) => `${c.type}=${c.status}`)).toEqual(["A=False", "B=False"]);
    expect(ab.map((c) => `${c.type}=${c.status}`)).toEqual(["A=True", "B=False"]);
    expect(removeCondition(changed, "A").map((c) => c.type)).toEqual(["B"]);
  });
});
