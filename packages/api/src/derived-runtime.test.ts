// The derived host runtime: modules per kind from one table, drop-ins only where the host uses the service.
import { describe, expect, it } from "vitest";
import { derivedRuntimeIntents, networkdDropin, resolvedDropin, type HostRuntime } from "./derived-runtime.js";
import { loadConfig } from "./load.js";
import { makeConfigView } from "./config-view.js";

const doc = (apiVersion: string, kind: string, name: string, spec: Record<string, unknown>) => `    - apiVersion: ${apiVersion}\n      kind: ${kind}\n      metadata: { name: ${name} }\n      spec: ${JSON.stringify(spec)}\n`;

function intents(resources: string, host: HostRuntime = { modules: true, networkd: true, resolved: true }) {
  const config = loadConfig(`apiVersion: routerd.net/v1alpha1\nkind: Router\nmetadata: { name: r }\nspec:\n  resources:\n${resources}`, "r.yaml");
  if (!config.config) throw new Error(JSON.stringify(config));
  const view = makeConfigView(config.config);
  return config.config.resources.flatMap((r) => derivedRuntimeIntents(r, view, host).map((i) => ({ owner: `${r.kind}/${r.metadata.name}`, kind: i.kind, name: i.name, attributes: i.attributes })));
}

const NET = "net.routerd.net/v1alpha1";

describe("derived host runtime", () => {
  it("derives the kernel modules each kind needs, wireguard optional under backend auto", () => {
    const got = intents(
      [
        doc(NET, "VRF", "blue", { routeTable: 100 }),
        doc("hybrid.routerd.net/v1alpha1", "TunnelInterface", "t1", { mode: "fou", local: "192.0.2.1", remote: "192.0.2.2", encapDport: 5555, trustedUnderlay: true }),
        doc(NET, "WireGuardInterface", "wg0", { privateKeyFile: "/etc/wg.key" }),
        doc(NET, "WireGuardInterface", "wg1", { privateKeyFile: "/etc/wg.key", backend: "wireguard-go" }),
      ].join(""),
      { modules: true, networkd: false, resolved: false },
    );
    expect(got.map((i) => `${i.owner} ${i.name}${i.attributes.optional ? " optional" : ""}`)).toEqual(["VRF/blue vrf", "TunnelInterface/t1 ipip", "TunnelInterface/t1 fou", "WireGuardInterface/wg0 wireguard optional"]);
    expect(got.every((i) => i.kind === "linux.kernelModule")).toBe(true);
  });

  it("marks an optional module the kernel has on disk as loadable, so it is loaded like a required one", () => {
    const resources = [doc(NET, "VRF", "blue", { routeTable: 100 }), doc(NET, "WireGuardInterface", "wg0", { privateKeyFile: "/etc/wg.key" })].join("");
    const attrs = (loadable: (m: string) => boolean) => intents(resources, { modules: true, networkd: false, resolved: false, loadable }).map((i) => i.attributes);
    expect(attrs((m) => m === "wireguard" || m === "vrf")).toEqual([
      { module: "vrf", optional: false },
      { module: "wireguard", optional: true, loadable: true },
    ]);
    expect(attrs(() => false)).toEqual([
      { module: "vrf", optional: false },
      { module: "wireguard", optional: true },
    ]);
  });

  it("derives nothing the host does not take: no modules without module support, no drop-ins without the service", () => {
    expect(intents(doc(NET, "VRF", "blue", { routeTable: 100 }), { modules: false, networkd: false, resolved: false })).toEqual([]);
  });

  it("keeps networkd off every link routerd manages, not off one it only observes", () => {
    const got = intents([doc(NET, "Interface", "wan", { ifname: "eth0" }), doc(NET, "Interface", "mgmt", { managed: false }), doc(NET, "VRF", "blue", { routeTable: 100 })].join(""), { modules: false, networkd: true, resolved: true });
    expect(got.map((i) => `${i.owner} ${i.name}`)).toEqual(["Interface/wan /etc/systemd/network/00-routerd-eth0.network", "VRF/blue /etc/systemd/network/00-routerd-blue.network"]);
    expect(got[0]!.attributes).toEqual({ path: "/etc/systemd/network/00-routerd-eth0.network", service: "systemd-networkd", content: networkdDropin(`${NET}/Interface/wan`, "eth0") });
    expect(networkdDropin("o", "eth0")).toBe("# Written by routerd for o: systemd-networkd leaves this link to routerd. Do not edit.\n[Match]\nName=eth0\n\n[Link]\nUnmanaged=yes\n");
  });

  it("turns resolved's stub listener off only when routerd-dns-resolver listens where it binds", () => {
    const lan = doc(NET, "DNSResolver", "lan-dns", { listen: [{ addresses: ["192.168.10.1"] }, { addresses: ["127.0.0.53"], port: 5353 }] });
    expect(intents(lan)).toEqual([]);
    const wild = doc(NET, "DNSResolver", "all", { listen: [{ addresses: ["0.0.0.0", "::"] }] });
    const got = intents(wild);
    expect(got.map((i) => i.name)).toEqual(["/etc/systemd/resolved.conf.d/routerd-all.conf"]);
    expect(got[0]!.attributes.content).toBe(resolvedDropin(`${NET}/DNSResolver/all`, ["0.0.0.0:53", "[::]:53"]));
    expect(resolvedDropin("o", ["0.0.0.0:53"])).toMatch(/\n\[Resolve\]\nDNSStubListener=no\n$/);
    expect(intents(wild, { modules: true, networkd: true, resolved: false })).toEqual([]);
  });
});
