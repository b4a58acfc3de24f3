// A WireGuard device routerd did not create is never changed, and nothing is put on it: not its link
// settings, not a peer.
import { Ledger, knownKind, type DesiredArtifact, type Inventory } from "@routerd/resource";
import type { RouterConfig } from "@routerd/api";
import { describe, expect, it } from "vitest";
import type { DesiredState } from "./desired.js";
import { plan } from "./plan.js";

const OWNER = "net.routerd.net/v1alpha1/WireGuardInterface/wg";
const PEER_OWNER = "net.routerd.net/v1alpha1/WireGuardPeer/b";
const PEER = "wg0/R+kpv0E7+9ZfEtF0WNgYBwK3xWemo6L7sQ+YHZWIuGY=";

const desired: DesiredArtifact[] = [
  { kind: "wireguard.device", name: "wg0", owners: [OWNER], action: "ensure", applyWith: "wireguard", attributes: { ifname: "wg0", backend: "auto", publicKey: "A" } },
  { kind: "linux.link", name: "wg0", owners: [OWNER], action: "ensure", applyWith: "ip-batch", attributes: { ifname: "wg0", adminUp: true, mtu: 1420 } },
  { kind: "wireguard.peer", name: PEER, owners: [PEER_OWNER], action: "ensure", applyWith: "wireguard", attributes: { ifname: "wg0", publicKey: "B", allowedIPs: ["10.0.0.0/24"] } },
];

function run(ledger: Ledger, onHost: boolean) {
  const config: RouterConfig = { file: "r.yaml", name: "r", resources: [] };
  const state: DesiredState = { view: { config, active: [], inactive: [], undecided: [], pending: [] }, intents: new Map(), desired, held: new Map() };
  const inventory: Inventory = new Map([
    ["wireguard.device", knownKind(onHost ? [{ kind: "wireguard.device", name: "wg0", attributes: { ifname: "wg0", backend: "kernel", publicKey: "X" } }] : [])],
    ["wireguard.peer", knownKind([])],
    ["linux.link", knownKind(onHost ? [{ kind: "linux.link", name: "wg0", attributes: { ifname: "wg0", adminUp: false, mtu: 1420 } }] : [])],
  ]);
  return plan({ desired: state, inventory, ledger, statuses: new Map(), allowEmpty: true });
}

describe("plan and WireGuard devices routerd did not create", () => {
  it("creates the device, its link and its peers when the name is free", () => {
    expect(run(new Ledger(), false).steps.map((s) => `${s.kind} ${s.name}`)).toEqual(["wireguard.device wg0", "linux.link wg0", `wireguard.peer ${PEER}`]);
  });

  it("leaves a foreign device, its link and its peers alone, and says why", () => {
    const p = run(new Ledger(), true);
    expect(p.steps).toEqual([]);
    expect(p.summary.unknown).toBe(3);
    expect(p.adoptionCandidates.map((c) => c.kind)).toEqual(["wireguard.device", "linux.link"]);
  });

  it("updates a device the ledger says routerd created", () => {
    const ledger = new Ledger();
    ledger.record({ kind: "wireguard.device", name: "wg0", owners: [OWNER], ownership: "created", state: "present", attributes: {}, now: new Date() });
    expect(run(ledger, true).steps.map((s) => `${s.kind} ${s.name}`)).toEqual(["wireguard.device wg0", "linux.link wg0", `wireguard.peer ${PEER}`]);
  });
});
