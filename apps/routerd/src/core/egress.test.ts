import type { EgressRoutePolicySpec } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { selectEgress, type EgressDecision, type HealthState } from "./egress.js";

const candidate = { metric: 0, enabled: true };
const spec: EgressRoutePolicySpec = {
  family: "ipv4",
  sourceCIDRs: [],
  destinationCIDRs: [],
  destinationSetRefs: [],
  excludeDestinationCIDRs: [],
  excludeDestinationSetRefs: [],
  failbackDelay: "10s",
  candidates: [
    { ...candidate, name: "one", interface: "wan1", table: 101, mark: 0x101, priority: 1101, weight: 200, healthCheck: "hc1" },
    { ...candidate, name: "two", interface: "wan2", table: 102, mark: 0x102, priority: 1102, weight: 100, healthCheck: "hc2" },
  ],
};

function run(steps: [number, HealthState, HealthState][]): string[] {
  let d: EgressDecision | undefined;
  return steps.map(([t, a, b]) => {
    d = selectEgress(spec, new Map([["hc1", a], ["hc2", b]]), d, t * 1000);
    return d.active;
  });
}

describe("selectEgress", () => {
  it("starts on the highest weight while nothing is known, and stays while it is healthy", () => {
    expect(run([[0, "Unknown", "Unknown"], [1, "Healthy", "Healthy"], [2, "Failing", "Healthy"]])).toEqual(["one", "one", "one"]);
  });

  it("fails over at once when the active candidate becomes unhealthy", () => {
    expect(run([[0, "Healthy", "Healthy"], [5, "Unhealthy", "Healthy"]])).toEqual(["one", "two"]);
  });

  it("fails back only after the better candidate stayed healthy for failbackDelay", () => {
    const out = run([
      [0, "Healthy", "Healthy"],
      [5, "Unhealthy", "Healthy"],
      [6, "Passing", "Healthy"],
      [7, "Healthy", "Healthy"],
      [12, "Healthy", "Healthy"],
      [17, "Healthy", "Healthy"],
    ]);
    expect(out).toEqual(["one", "two", "two", "two", "two", "one"]);
  });

  it("does not churn on a flapping uplink: each relapse restarts the failback wait", () => {
    const out = run([
      [0, "Unhealthy", "Healthy"],
      [1, "Healthy", "Healthy"],
      [8, "Unhealthy", "Healthy"],
      [9, "Healthy", "Healthy"],
      [16, "Healthy", "Healthy"],
      [19, "Healthy", "Healthy"],
    ]);
    expect(out).toEqual(["two", "two", "two", "two", "two", "one"]);
  });

  it("keeps the highest weight when every candidate is down, rather than flapping between dead links", () => {
    expect(run([[0, "Unhealthy", "Unhealthy"], [1, "Unhealthy", "Unhealthy"]])).toEqual(["one", "one"]);
  });

  it("treats candidates without a health check as always usable", () => {
    const plain = { ...spec, candidates: spec.candidates.map((c) => ({ ...c, healthCheck: undefined })) } as EgressRoutePolicySpec;
    expect(selectEgress(plain, new Map(), undefined, 0).active).toBe("one");
  });

  it("never picks a disabled candidate; a candidate whose HealthCheck is disabled counts as unchecked", () => {
    const off = { ...spec, candidates: [{ ...spec.candidates[0]!, enabled: false }, spec.candidates[1]!] };
    expect(selectEgress(off, new Map([["hc1", "Healthy" as const]]), undefined, 0).active).toBe("two");
    expect(selectEgress(spec, new Map([["hc1", "Unhealthy" as const], ["hc2", "Healthy" as const]]), undefined, 0, new Set(["hc1"])).active).toBe("one");
    expect(selectEgress({ ...spec, candidates: [] }, new Map(), undefined, 0).active).toBe("");
  });
});
