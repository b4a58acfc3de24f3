import { describe, expect, it } from "vitest";
import { ReconcileTimeline, RUN_FINISHED, RUN_STARTED } from "./reconcile-trace.js";

describe("ReconcileTimeline", () => {
  it("turns one run's stage marks into a root span and a span per stage", () => {
    const t = new ReconcileTimeline();
    expect(t.mark("modules loaded", 1)).toBeUndefined(); // outside a run: ignored
    expect(t.mark(RUN_STARTED, 100)).toBeUndefined();
    expect(t.mark("ledger and status read", 103)).toBeUndefined();
    expect(t.mark("host observed", 140)).toBeUndefined();
    expect(t.mark(RUN_FINISHED, 150)).toEqual({
      name: "routerd.reconcile",
      start: 100,
      end: 150,
      attributes: { "routerd.reconcile.applied": true, "routerd.reconcile.phases": 3 },
      children: [
        { name: "ledger and status read", start: 100, end: 103 },
        { name: "host observed", start: 103, end: 140 },
        { name: RUN_FINISHED, start: 140, end: 150 },
      ],
    });
    expect(t.mark("planned", 160)).toBeUndefined(); // nothing open any more
  });

  it("a run that never finished (a standby's plan only) ends at its last mark when the next one starts", () => {
    const t = new ReconcileTimeline();
    t.mark(RUN_STARTED, 10);
    t.mark("host observed", 30);
    const previous = t.mark(RUN_STARTED, 1000);
    expect(previous).toMatchObject({ start: 10, end: 30, attributes: { "routerd.reconcile.applied": false }, children: [{ name: "host observed", start: 10, end: 30 }] });
    expect(t.close(false)).toMatchObject({ start: 1000, end: 1000, children: [] });
  });
});
