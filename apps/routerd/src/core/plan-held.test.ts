// A resource whose daemon state is unknown (holdsExisting), or that waits for a status-sourced value
// (pending), keeps what exists as it is: no cleanup, and no update either, even of an artifact it shares
// with resources that are not held.
import { Ledger, knownKind, type DesiredArtifact, type Inventory } from "@routerd/resource";
import type { RouterConfig } from "@routerd/api";
import { describe, expect, it } from "vitest";
import type { DesiredState } from "./desired.js";
import { plan } from "./plan.js";

const FILE = "/etc/routerd/dnsmasq.conf#lan-services";
const INFO = "net.routerd.net/v1alpha1/DHCPv6Information/lan-info";
const RA = "net.routerd.net/v1alpha1/IPv6RouterAdvertisement/lan-ra";

const SERVER = "net.routerd.net/v1alpha1/DHCPv4Server/lan";
const ATTRS = { path: "/etc/routerd/dnsmasq.conf", block: "lan-services" };

function run(held: Map<string, string>, ledgerOwners?: string[]) {
  const d: DesiredArtifact = { kind: "file", name: FILE, owners: [INFO, RA], action: "ensure", applyWith: "file-block", attributes: { ...ATTRS, content: "new\n" } };
  const config: RouterConfig = { file: "r.yaml", name: "r", resources: [] };
  const desired: DesiredState = { view: { config, active: [], inactive: [], undecided: [], pending: [] }, intents: new Map(), desired: [d], held, allocations: [] };
  const inventory: Inventory = new Map([["file", knownKind([{ kind: "file", name: FILE, attributes: { ...ATTRS, content: "old\n" } }])]]);
  const ledger = new Ledger();
  if (ledgerOwners) ledger.record({ kind: "file", name: FILE, owners: ledgerOwners, ownership: "created", state: "present", attributes: { ...ATTRS, content: "old\n" }, now: new Date() });
  return plan({ desired, inventory, ledger, statuses: new Map(), allowEmpty: true });
}

describe("plan with held owners", () => {
  it("updates a drifted file when no owner is held", () => {
    const p = run(new Map());
    expect(p.steps.map((s) => s.name)).toEqual([FILE]);
    expect(p.summary.update).toBe(1);
  });

  it("leaves it as it is while one of its owners is held, and says why", () => {
    const p = run(new Map([[INFO, "DNS information of isp unknown (daemon not answering)"]]));
    expect(p.steps).toEqual([]);
    expect(p.summary).toMatchObject({ update: 0, unchanged: 1 });
  });

  it("a pending owner the ledger records (no longer among the desired owners) holds the shared file too", () => {
    const p = run(new Map([[SERVER, "waiting for DHCPv4Client/wan.dnsServers has no value yet"]]), [INFO, RA, SERVER]);
    expect(p.steps).toEqual([]);
    expect(p.resources.flatMap((r) => r.artifacts)).toEqual([]); // no resource in the view: the reason is in the summary only
    expect(p.summary).toMatchObject({ update: 0, unchanged: 1 });
    expect(run(new Map(), [INFO, RA, SERVER]).summary.update).toBe(1);
  });
});
