// A resource whose daemon state is unknown (holdsExisting) keeps what exists as it is: no cleanup, and no
// update either, even of an artifact it shares with resources that are not held.
import { Ledger, knownKind, type DesiredArtifact, type Inventory } from "@routerd/resource";
import type { RouterConfig } from "@routerd/api";
import { describe, expect, it } from "vitest";
import type { DesiredState } from "./desired.js";
import { plan } from "./plan.js";

const FILE = "/etc/routerd/dnsmasq.conf#lan-services";
const INFO = "net.routerd.net/v1alpha1/DHCPv6Information/lan-info";
const RA = "net.routerd.net/v1alpha1/IPv6RouterAdvertisement/lan-ra";

function run(held: Map<string, string>) {
  const d: DesiredArtifact = { kind: "file", name: FILE, owners: [INFO, RA], action: "ensure", applyWith: "file-block", attributes: { path: "/etc/routerd/dnsmasq.conf", block: "lan-services", content: "new\n" } };
  const config: RouterConfig = { file: "r.yaml", name: "r", resources: [] };
  const desired: DesiredState = { view: { config, active: [], inactive: [], undecided: [] }, intents: new Map(), desired: [d], held };
  const inventory: Inventory = new Map([["file", knownKind([{ kind: "file", name: FILE, attributes: { path: "/etc/routerd/dnsmasq.conf", block: "lan-services", content: "old\n" } }])]]);
  return plan({ desired, inventory, ledger: new Ledger(), statuses: new Map(), allowEmpty: true });
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
});
