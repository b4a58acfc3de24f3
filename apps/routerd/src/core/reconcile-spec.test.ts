// spec.reconcile on a plan: nothing on a protected interface is changed or removed (its ledger entry stays),
// and strict mode leaves host objects routerd does not own alone.
import { loadConfig, type RouterConfig } from "@routerd/api";
import { Ledger, type OwnerKey } from "@routerd/resource";
import { describe, expect, it } from "vitest";
import type { Plan } from "./plan.js";
import { enforceReconcileSpec } from "./reconcile-spec.js";

const OWNER = "net.routerd.net/v1alpha1/IPv4StaticAddress/lan" as OwnerKey;

function config(reconcile: string): RouterConfig {
  const text = [
    "apiVersion: routerd.net/v1alpha1",
    "kind: Router",
    "metadata: { name: t }",
    "spec:",
    `  reconcile: ${reconcile}`,
    "  resources:",
    "    - { apiVersion: net.routerd.net/v1alpha1, kind: Interface, metadata: { name: mgmt }, spec: { ifname: eth9, managed: false } }",
    "    - { apiVersion: net.routerd.net/v1alpha1, kind: Interface, metadata: { name: lan }, spec: { ifname: lan0 } }",
    "    - { apiVersion: net.routerd.net/v1alpha1, kind: IPv4StaticAddress, metadata: { name: lan }, spec: { interface: lan, address: 192.168.1.1/24 } }",
  ].join("\n");
  const r = loadConfig(text, "t.yaml");
  if (!r.config) throw new Error(JSON.stringify(r.issues));
  return r.config;
}

function plan(): Plan {
  const address = (ifname: string, a: string) => ({ kind: "linux.ipv4.address" as const, name: `${ifname}/${a}/24`, attributes: { ifname, address: a, prefixLength: 24 } });
  const lan = address("lan0", "192.168.1.1");
  const old = address("eth9", "10.9.9.1");
  return {
    resources: [{ id: "IPv4StaticAddress/lan", owner: OWNER, state: "active", artifacts: [{ kind: lan.kind, name: lan.name, owner: OWNER, action: "ensure", change: "update" }, { kind: old.kind, name: old.name, owner: OWNER, action: "delete", change: "delete", reason: "orphan" }] }],
    orphans: [],
    adoptionCandidates: [{ ...lan, owner: OWNER, reason: "drifted", desired: lan.attributes, observed: lan.attributes, differences: [] }],
    lookAlikes: [],
    unknownKinds: [],
    allocations: [],
    gc: {
      actions: [
        { type: "removeArtifact", kind: old.kind, name: old.name, owner: OWNER, operation: "ip addr del", attributes: old.attributes, reason: "orphan" },
        { type: "forgetLedger", kind: old.kind, name: old.name, owner: OWNER, reason: "removed from the host" },
      ],
      orphans: [],
      lookAlikes: [],
      skipped: [],
    },
    steps: [{ op: "ensure", kind: lan.kind, name: lan.name, attributes: lan.attributes }],
    summary: { create: 0, update: 1, unchanged: 0, delete: 1, unknown: 0, orphans: 0, adoptionCandidates: 1 },
  };
}

describe("spec.reconcile", () => {
  it("keeps everything on a protected interface as it is, and its ledger entry", () => {
    const p = plan();
    enforceReconcileSpec(p, config("{ protectedInterfaces: [mgmt] }"), new Ledger());
    expect(p.gc.actions).toEqual([]);
    expect(p.gc.skipped).toEqual([expect.objectContaining({ name: "eth9/10.9.9.1/24", reason: expect.stringMatching(/protected/) })]);
    expect(p.steps.map((s) => s.name)).toEqual(["lan0/192.168.1.1/24"]); // progressive: the drifted address is changed
    expect(p.summary).toMatchObject({ update: 1, delete: 0 });
  });

  it("strict mode leaves host objects that are not routerd's alone, and says what to do", () => {
    const p = plan();
    enforceReconcileSpec(p, config("{ mode: strict }"), new Ledger());
    expect(p.steps).toEqual([]);
    expect(p.resources[0]!.artifacts[0]).toMatchObject({ change: "unchanged", reason: expect.stringMatching(/adopt it first/) });
    expect(p.summary).toMatchObject({ update: 0, unchanged: 1 });
  });

  it("refuses a resource that would change a protected interface, and protected names that name nothing", () => {
    const text = [
      "apiVersion: routerd.net/v1alpha1",
      "kind: Router",
      "metadata: { name: t }",
      "spec:",
      "  apply: { protectedInterfaces: [lan], protectedZones: [nope] }",
      "  resources:",
      "    - { apiVersion: net.routerd.net/v1alpha1, kind: Interface, metadata: { name: lan }, spec: { ifname: lan0 } }",
      "    - { apiVersion: net.routerd.net/v1alpha1, kind: IPv4StaticAddress, metadata: { name: lan, ownerRefs: [{ kind: Interface, name: lan }], annotations: { note: kept } }, spec: { interface: lan, address: 192.168.1.1/24 } }",
      "    - { apiVersion: net.routerd.net/v1alpha1, kind: Hostname, metadata: { name: h, ownerRefs: [{ kind: Interface, name: wan }] }, spec: { hostname: r1 } }",
    ].join("\n");
    const issues = loadConfig(text, "t.yaml").issues.filter((i) => i.severity === "error").map((i) => `${i.resource ?? ""} ${i.field}: ${i.message}`);
    expect(issues.sort()).toEqual([
      " spec.reconcile.protectedZones[0]: no FirewallZone named nope",
      "Hostname/h metadata.ownerRefs[0]: Interface/wan is not defined",
      "IPv4StaticAddress/lan spec: would change lan0, which spec.reconcile protects",
      "Interface/lan spec: would change lan0, which spec.reconcile protects",
    ]);
  });
});
