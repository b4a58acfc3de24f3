// A link routerd would create (a VRF, a tunnel) that already exists and is not routerd's is never changed:
// the plan leaves it alone, says why and lists it for adoption; an adopted one is never made again.
import { Ledger, knownKind, type DesiredArtifact, type Inventory } from "@routerd/resource";
import type { RouterConfig } from "@routerd/api";
import { describe, expect, it } from "vitest";
import type { DesiredState } from "./desired.js";
import { plan } from "./plan.js";

const OWNER = "net.routerd.net/v1alpha1/VRF/blue";
const WANT = { ifname: "blue", linkType: "vrf", linkData: { table: 10 }, adminUp: true };

function run(observed: Record<string, unknown> | undefined, ownership?: "created" | "adopted") {
  const d: DesiredArtifact = { kind: "linux.link", name: "blue", owners: [OWNER], action: "ensure", applyWith: "ip-batch", attributes: WANT };
  const config: RouterConfig = { file: "r.yaml", name: "r", resources: [] };
  const desired: DesiredState = { view: { config, active: [], inactive: [], undecided: [], pending: [] }, intents: new Map(), desired: [d], held: new Map() };
  const inventory: Inventory = new Map([["linux.link", knownKind(observed ? [{ kind: "linux.link", name: "blue", attributes: observed }] : [])]]);
  const ledger = new Ledger();
  if (ownership) ledger.record({ kind: "linux.link", name: "blue", owners: [OWNER], ownership, state: "present", attributes: WANT, now: new Date() });
  return plan({ desired, inventory, ledger, statuses: new Map(), allowEmpty: true });
}

describe("plan for links routerd creates", () => {
  it("creates an absent link", () => {
    expect(run(undefined).steps.map((s) => `${s.op} ${s.name}`)).toEqual(["ensure blue"]);
  });

  it("leaves a foreign link of the same name alone and offers it for adoption", () => {
    const p = run({ ifname: "blue", linkType: "vrf", linkData: { table: 99 }, adminUp: true });
    expect(p.steps).toEqual([]);
    expect(p.adoptionCandidates.map((c) => c.name)).toEqual(["blue"]);
    expect(p.summary).toMatchObject({ create: 0, update: 0, unchanged: 1 });
  });

  it("remakes its own link whose parameters drifted, but not an adopted one", () => {
    const drifted = { ifname: "blue", linkType: "vrf", linkData: { table: 99 }, adminUp: true };
    expect(run(drifted, "created").steps.map((s) => s.name)).toEqual(["blue"]);
    expect(run(drifted, "adopted").steps).toEqual([]);
  });
});
