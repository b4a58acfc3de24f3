import { describe, expect, it } from "vitest";
import type { ConditionChange } from "./conditions.js";
import { StatusModel } from "./status-model.js";
import type { Phase } from "./types.js";

function clock(start = Date.parse("2026-01-01T00:00:00Z")): { now: () => Date; tick: (ms: number) => void } {
  let t = start;
  return { now: () => new Date(t), tick: (ms) => (t += ms) };
}

describe("StatusModel", () => {
  it("derives phase and health from the kit's lifecycle and the daemon's own phase", () => {
    const phases: string[] = [];
    const model = new StatusModel({ onPhase: (p, prev) => phases.push(`${prev}->${p}`) });
    const seen: [Phase, string][] = [[model.phase, model.health]];
    model.setPhase("Degraded"); // remembered while Starting
    seen.push([model.phase, model.health]);
    model.setLifecycle("Up");
    seen.push([model.phase, model.health]);
    model.setPhase("Running");
    seen.push([model.phase, model.health]);
    model.setLifecycle("Stopping");
    seen.push([model.phase, model.health]);
    expect(seen).toEqual([
      ["Starting", "NOT_SERVING"],
      ["Starting", "NOT_SERVING"],
      ["Degraded", "SERVING"],
      ["Running", "SERVING"],
      ["Stopping", "NOT_SERVING"],
    ]);
    expect(phases).toEqual(["Starting->Degraded", "Degraded->Running", "Running->Stopping"]);
  });

  it("merges resource updates and stamps updatedAt only on real changes", () => {
    const c = clock();
    let changes = 0;
    const model = new StatusModel({ onChange: () => changes++ }, c.now);
    model.setResource("wan", { kind: "DHCPv4Lease", phase: "Requesting" });
    c.tick(1000);
    model.setResource("wan", { phase: "Requesting" }); // no change
    expect(model.resource("wan")?.updatedAt).toBe("2026-01-01T00:00:00.000Z");
    model.setResource("wan", { phase: "Bound", details: { address: "192.0.2.10" } });
    expect(model.resource("wan")).toMatchObject({
      kind: "DHCPv4Lease",
      phase: "Bound",
      details: { address: "192.0.2.10" },
      updatedAt: "2026-01-01T00:00:01.000Z",
    });
    expect(changes).toBe(2);
    model.removeResource("wan");
    model.removeResource("wan");
    expect(model.resources()).toEqual([]);
    expect(changes).toBe(3);
  });

  it("reports condition changes per resource with the transition flag", () => {
    const c = clock();
    const changes: [string, ConditionChange][] = [];
    const model = new StatusModel({ onCondition: (r, ch) => changes.push([r, ch]) }, c.now);
    model.setResourceCondition("wan", { type: "Bound", status: "True", reason: "Ack" });
    c.tick(5000);
    model.setResourceCondition("wan", { type: "Bound", status: "True", reason: "Renewed" });
    model.setResourceCondition("wan", { type: "Bound", status: "True", reason: "Renewed" });
    c.tick(5000);
    model.setCondition({ type: "SocketReady", status: "False" });
    expect(changes.map(([r, ch]) => [r, ch.condition.reason, ch.transitioned])).toEqual([
      ["wan", "Ack", true],
      ["wan", "Renewed", false],
      ["", "", true],
    ]);
    expect(model.resource("wan")?.conditions[0]?.lastTransitionTime).toBe("2026-01-01T00:00:00.000Z");
    expect(model.conditions()[0]?.lastTransitionTime).toBe("2026-01-01T00:00:10.000Z");
  });

  it("restores persisted resources and conditions", () => {
    const first = new StatusModel();
    first.setResourceCondition("wan", { type: "Bound", status: "True" });
    first.setCondition({ type: "Ready", status: "True" });
    const second = new StatusModel({}, undefined, first.persisted());
    expect(second.persisted()).toEqual(first.persisted());
  });
});
