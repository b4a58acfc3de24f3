// The derived host runtime in the plan: a module the config needs is loaded only when missing, recorded only
// when routerd loaded it, and never unloaded; drop-ins are created and removed whole.
import { loadConfig, type HostRuntime } from "@routerd/api";
import { Ledger, knownKind, type Inventory, type ObservedArtifact } from "@routerd/resource";
import { describe, expect, it } from "vitest";
import { computeDesired } from "./desired.js";
import { recordConfirmed } from "./engine.js";
import { resultsToText } from "./format.js";
import { plan } from "./plan.js";

const VRF = `    - apiVersion: net.routerd.net/v1alpha1
      kind: VRF
      metadata: { name: blue }
      spec: { routeTable: 100 }
`;
const OTHER = `    - apiVersion: net.routerd.net/v1alpha1
      kind: Interface
      metadata: { name: lo }
      spec: { managed: false }
`;
const WIREGUARD = `    - apiVersion: net.routerd.net/v1alpha1
      kind: WireGuardInterface
      metadata: { name: tun }
      spec: { ifname: wg0, privateKeyFile: /etc/routerd/wireguard/a.key }
`;
const HOST: HostRuntime = { modules: true, networkd: true, resolved: false };
const loaded = (...names: string[]): ObservedArtifact[] => names.map((m) => ({ kind: "linux.kernelModule", name: m, attributes: { module: m, state: "loaded", refcount: 0, holders: [] } }));
const DROPIN = "/etc/systemd/network/00-routerd-blue.network";

function run(resources: string, inventory: Inventory, ledger = new Ledger(), hostRuntime = HOST) {
  const config = loadConfig(`apiVersion: routerd.net/v1alpha1\nkind: Router\nmetadata: { name: r }\nspec:\n  resources:\n${resources}`, "r.yaml").config!;
  const desired = computeDesired({ config, when: new Map(), stateDir: "/tmp/none", hostRuntime });
  return plan({ desired, inventory, ledger, statuses: new Map(), allowEmpty: true });
}

const inventoryWith = (modules: ObservedArtifact[], dropins: ObservedArtifact[] = []): Inventory =>
  new Map([
    ["linux.link", knownKind([])],
    ["linux.kernelModule", knownKind(modules)],
    ["systemd.dropin", knownKind(dropins)],
  ]);

describe("derived host runtime in the plan", () => {
  it("loads a missing module before the VRF and writes networkd's drop-in for it", () => {
    const p = run(VRF, inventoryWith([]));
    expect(new Set(p.steps.map((s) => `${s.kind} ${s.name}`))).toEqual(new Set(["linux.kernelModule vrf", `systemd.dropin ${DROPIN}`, "linux.link blue"]));
  });

  it("loads an optional module (wireguard under backend auto) the kernel has on disk; leaves it out where the kernel has none", () => {
    const modules = (p: ReturnType<typeof run>) => p.steps.filter((s) => s.kind === "linux.kernelModule").map((s) => `${s.op} ${s.name}`);
    const has = (...names: string[]) => ({ ...HOST, loadable: (m: string) => names.includes(m) });
    expect(modules(run(WIREGUARD, inventoryWith([]), new Ledger(), has("wireguard")))).toEqual(["ensure wireguard"]);
    expect(modules(run(WIREGUARD, inventoryWith([]), new Ledger(), has()))).toEqual([]);
    // Loaded already (by anyone): nothing to do, whatever routerd knows of the disk.
    expect(modules(run(WIREGUARD, inventoryWith(loaded("wireguard")), new Ledger(), has("wireguard")))).toEqual([]);
  });

  it("a module loaded before routerd is left as it is, and never unloaded when the config drops it", () => {
    const p = run(VRF, inventoryWith(loaded("vrf")));
    expect(p.steps.some((s) => s.kind === "linux.kernelModule")).toBe(false);
    const gone = run(OTHER, inventoryWith(loaded("vrf")));
    expect(gone.gc.actions.filter((a) => a.type === "removeArtifact")).toEqual([]);
  });

  it("a module routerd loaded (ledger: created) is forgotten, never unloaded; its drop-in is removed, when the config drops them", () => {
    const ledger = new Ledger();
    const owner = "net.routerd.net/v1alpha1/VRF/blue";
    ledger.record({ kind: "linux.kernelModule", name: "vrf", owners: [owner], ownership: "created", state: "present", attributes: { module: "vrf", optional: false } });
    ledger.record({ kind: "systemd.dropin", name: DROPIN, owners: [owner], ownership: "created", state: "present", attributes: { path: DROPIN, service: "systemd-networkd" } });
    const p = run(OTHER, inventoryWith(loaded("vrf"), [{ kind: "systemd.dropin", name: DROPIN, attributes: { path: DROPIN, content: "x" } }]), ledger);
    const removals = p.gc.actions.filter((a) => a.type === "removeArtifact").map((a) => (a.type === "removeArtifact" ? `${a.kind} ${a.name}` : ""));
    expect(removals).toEqual([`systemd.dropin ${DROPIN}`]);
    expect(p.gc.actions.some((a) => a.type === "forgetLedger" && a.kind === "linux.kernelModule" && a.name === "vrf")).toBe(true);
  });

  it("an optional module modprobe could not load is not recorded, even when the kernel autoloads it later in the run", () => {
    const config = loadConfig(`apiVersion: routerd.net/v1alpha1\nkind: Router\nmetadata: { name: r }\nspec:\n  resources:\n${WIREGUARD}`, "r.yaml").config!;
    const desired = computeDesired({ config, when: new Map(), stateDir: "/tmp/none", hostRuntime: { ...HOST, loadable: () => true } });
    const module = desired.desired.find((d) => d.kind === "linux.kernelModule")!;
    const pending = () => {
      const ledger = new Ledger();
      ledger.record({ kind: module.kind, name: module.name, owners: module.owners, ownership: "created", state: "pending", attributes: module.attributes });
      return ledger;
    };
    // `ip link add type wireguard` made the kernel load it: the re-observation sees it, but routerd did not load it.
    const verified = inventoryWith(loaded("wireguard"));
    const warned = pending();
    recordConfirmed(warned, desired, verified, new Date(), [{ op: "ensure", kind: module.kind, name: module.name, ok: true, warning: "optional module not loaded (modprobe wireguard: exit 1)" }]);
    expect(warned.get(module.kind, module.name)).toBeUndefined();
    // Not there after a warning-less step either (no observation confirms it): forgotten too.
    const absent = pending();
    recordConfirmed(absent, desired, inventoryWith([]), new Date(), [{ op: "ensure", kind: module.kind, name: module.name, ok: true }]);
    expect(absent.get(module.kind, module.name)).toBeUndefined();
    // modprobe loaded it: recorded as routerd's.
    const loadedNow = pending();
    recordConfirmed(loadedNow, desired, verified, new Date(), [{ op: "ensure", kind: module.kind, name: module.name, ok: true }]);
    expect(loadedNow.get(module.kind, module.name)).toMatchObject({ ownership: "created", state: "present" });
    expect(resultsToText([{ op: "ensure", kind: module.kind, name: module.name, ok: true, warning: "optional module not loaded (x)" }])).toContain("warning: ensure linux.kernelModule wireguard: optional module not loaded (x)");
  });
});
