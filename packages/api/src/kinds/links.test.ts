// The kinds that create links (VRF, VXLANTunnel, TunnelInterface, DSLiteTunnel): their linux.link intents
// carry the link type and parameters, their other artifacts follow, and validation says what to write.
import { describe, expect, it } from "vitest";
import { makeConfigView } from "../config-view.js";
import { loadConfig } from "../load.js";
import { runtimeFrom, type LinkFacts, type RuntimeFact } from "../runtime.js";
import { kindDefinition } from "./index.js";

const GROUPS: Record<string, string> = { TunnelInterface: "hybrid.routerd.net/v1alpha1" };
type Doc = { kind: string; name: string; spec: Record<string, unknown> };
const doc = (resources: Doc[]) =>
  JSON.stringify({
    apiVersion: "routerd.net/v1alpha1",
    kind: "Router",
    metadata: { name: "t" },
    spec: { resources: resources.map((r) => ({ apiVersion: GROUPS[r.kind] ?? "net.routerd.net/v1alpha1", kind: r.kind, metadata: { name: r.name }, spec: r.spec })) },
  });

const ifaces: Doc[] = [
  { kind: "Interface", name: "wan", spec: { ifname: "eth0" } },
  { kind: "Interface", name: "lan", spec: { ifname: "eth1" } },
  { kind: "Interface", name: "br", spec: { ifname: "br0" } },
];

function load(resources: Doc[]) {
  return loadConfig(doc([...ifaces, ...resources]), "t.yaml");
}

function errors(resources: Doc[]): string[] {
  return load(resources)
    .issues.filter((i) => i.severity === "error")
    .map((i) => `${i.resource} ${i.field}: ${i.message}`);
}

function intents(resources: Doc[], runtime = runtimeFrom({})) {
  const r = load(resources);
  expect(r.issues.filter((i) => i.severity === "error")).toEqual([]);
  const view = makeConfigView(r.config!, runtime);
  const target = r.config!.resources.at(-1)!;
  return kindDefinition(target.kind)!.intents(target, view).map((i) => ({ kind: i.kind, name: i.name, ...i.attributes }));
}

describe("VRF", () => {
  it("creates the VRF device bound to its table and enslaves the members", () => {
    expect(intents([{ kind: "VRF", name: "blue", spec: { routeTable: 100, members: ["lan"] } }])).toEqual([
      { kind: "linux.link", name: "blue", ifname: "blue", linkType: "vrf", linkData: { table: 100 }, adminUp: true, members: ["eth1"] },
    ]);
  });

  it("refuses the kernel's tables, a table or member used twice", () => {
    expect(errors([{ kind: "VRF", name: "v", spec: { routeTable: 254 } }])).toEqual(["VRF/v spec.routeTable: table 254 is one of the kernel's own (0, 253, 254, 255)"]);
    expect(
      errors([
        { kind: "VRF", name: "a", spec: { routeTable: 10, members: ["lan"] } },
        { kind: "VRF", name: "b", spec: { routeTable: 10, members: ["lan"] } },
      ]),
    ).toEqual(["VRF/b spec.routeTable: VRF/a uses table 10 too", "VRF/b spec.members: lan is a member of VRF/a already"]);
  });

  it("is an interface other resources name", () => {
    const r = load([{ kind: "VRF", name: "blue", spec: { ifname: "vrf-blue", routeTable: 100 } }, { kind: "IPv4StaticAddress", name: "a", spec: { interface: "blue", address: "10.0.0.1/24" } }]);
    expect(r.issues.filter((i) => i.severity === "error")).toEqual([]);
    expect(makeConfigView(r.config!).ifname("blue")).toBe("vrf-blue");
  });
});

describe("VXLANTunnel", () => {
  it("creates the device over the underlay, in its bridge, with a flood entry per peer", () => {
    expect(intents([{ kind: "VXLANTunnel", name: "vx0", spec: { vni: 42, localAddress: "192.0.2.1", underlayInterface: "wan", peers: ["192.0.2.2", "192.0.2.3"], bridge: "br", mtu: 1450 } }])).toEqual([
      { kind: "linux.link", name: "vx0", ifname: "vx0", linkType: "vxlan", linkData: { vni: 42, local: "192.0.2.1", dev: "eth0", port: 4789, learning: false }, adminUp: true, mtu: 1450, master: "br0" },
      { kind: "linux.fdb", name: "vx0/dst=192.0.2.2", ifname: "vx0", dst: "192.0.2.2" },
      { kind: "linux.fdb", name: "vx0/dst=192.0.2.3", ifname: "vx0", dst: "192.0.2.3" },
    ]);
  });

  it("refuses peers of the other family, and MSS clamping without the bridge and mtu it needs", () => {
    expect(errors([{ kind: "VXLANTunnel", name: "vx0", spec: { vni: 1, localAddress: "192.0.2.1", underlayInterface: "wan", peers: ["2001:db8::2"], tcpMSSClamp: true } }])).toEqual([
      "VXLANTunnel/vx0 spec.peers[0]: peer 2001:db8::2 is not of the local address's family",
      "VXLANTunnel/vx0 spec.tcpMSSClamp: tcpMSSClamp clamps traffic bridged through the tunnel, and this tunnel is in no bridge",
      "VXLANTunnel/vx0 spec.tcpMSSClamp: tcpMSSClamp needs the tunnel's mtu: the clamped MSS is mtu minus 40 (IPv4) or 60 (IPv6)",
    ]);
    expect(errors([{ kind: "VXLANTunnel", name: "vx0", spec: { vni: 1, localAddress: "192.0.2.1", underlayInterface: "wan", bridge: "br", mtu: 500, tcpMSSClamp: true } }])).toEqual([
      "VXLANTunnel/vx0 spec.mtu: mtu 500 leaves an IPv6 MSS below 536 bytes",
    ]);
  });

  it("with tcpMSSClamp also wants routerd's bridge MSS table", () => {
    const got = intents([{ kind: "VXLANTunnel", name: "vx0", spec: { vni: 42, localAddress: "192.0.2.1", underlayInterface: "wan", peers: ["192.0.2.2"], bridge: "br", mtu: 1450, tcpMSSClamp: true } }]);
    expect(got.filter((i) => i.kind === "nft.table")).toEqual([{ kind: "nft.table", name: "bridge/routerd_mss", family: "bridge", table: "routerd_mss" }]);
  });
});

describe("TunnelInterface", () => {
  const base = { local: "198.51.100.1", remote: "198.51.100.2", trustedUnderlay: true };

  it("ipip and gre: the link named after the resource, with its inner address", () => {
    expect(intents([{ kind: "TunnelInterface", name: "t1", spec: { ...base, mode: "gre", key: 7, ttl: 64, address: "10.255.0.1/30" } }])).toEqual([
      { kind: "linux.link", name: "t1", ifname: "t1", linkType: "gre", linkData: { local: "198.51.100.1", remote: "198.51.100.2", ttl: 64, key: 7 }, adminUp: true, mtu: 1476 },
      { kind: "linux.ipv4.address", name: "t1/10.255.0.1/30", ifname: "t1", address: "10.255.0.1", prefixLength: 30 },
    ]);
  });

  it("fou and gue open their receive port; a peerAddress makes the inner address point-to-point", () => {
    expect(intents([{ kind: "TunnelInterface", name: "t2", spec: { ...base, mode: "gue", encapDport: 6666, address: "10.255.0.5", peerAddress: "10.255.0.6" } }])).toEqual([
      { kind: "linux.fou", name: "port=6666", port: 6666, encap: "gue" },
      { kind: "linux.link", name: "t2", ifname: "t2", linkType: "ipip", linkData: { local: "198.51.100.1", remote: "198.51.100.2", encap: "gue", encapSport: "auto", encapDport: 6666 }, adminUp: true, mtu: 1468 },
      { kind: "linux.ipv4.address", name: "t2/10.255.0.5/32", ifname: "t2", address: "10.255.0.5", prefixLength: 32, peer: "10.255.0.6" },
    ]);
  });

  it("says what is missing or does not fit", () => {
    expect(errors([{ kind: "TunnelInterface", name: "t3", spec: { mode: "fou", local: "198.51.100.1", key: 5, trustedUnderlay: false } }]).sort()).toEqual([
      "TunnelInterface/t3 spec.encapDport: mode fou needs the UDP port (both ends listen on it)",
      "TunnelInterface/t3 spec.key: a key is GRE's; mode fou has none",
      "TunnelInterface/t3 spec.remote: the peer's underlay address is required",
      "TunnelInterface/t3 spec.trustedUnderlay: ipip, GRE, FOU and GUE carry traffic unencrypted",
    ]);
  });
});

describe("DSLiteTunnel", () => {
  const wanLink = (addresses: LinkFacts["ipv6"]): LinkFacts => ({ ifname: "eth0", adminUp: true, ipv4: [], ipv6: addresses });
  const runtime = (aftr: RuntimeFact<string[]>, link?: LinkFacts) => runtimeFrom({ aftr: new Map([["aftr.example", aftr]]), ...(link ? { links: new Map([["eth0", link]]) } : {}) });
  const spec = { interface: "wan", aftrFQDN: "aftr.example", defaultRoute: true };

  it("tunnels from the interface's global address to the AFTR's AAAA, with the B4 address and the default route", () => {
    const link = wanLink([
      { address: "fe80::1", prefixLength: 64, scope: "link" },
      { address: "2001:db8:1::2", prefixLength: 64, scope: "global" },
    ]);
    expect(intents([{ kind: "DSLiteTunnel", name: "ds0", spec }], runtime({ state: "present", value: ["2001:db8:ffff::1", "2001:db8:ffff::2"] }, link))).toEqual([
      {
        kind: "linux.link",
        name: "ds0",
        ifname: "ds0",
        linkType: "ip6tnl",
        linkData: { mode: "ip4ip6", local: "2001:db8:1::2", remote: "2001:db8:ffff::1", dev: "eth0", encapLimit: "none" },
        adminUp: true,
        mtu: 1460,
      },
      { kind: "linux.ipv4.address", name: "ds0/192.0.0.2/29", ifname: "ds0", address: "192.0.0.2", prefixLength: 29 },
      { kind: "linux.ipv4.route", name: "table=254,dst=0.0.0.0/0,metric=0", table: 254, destination: "0.0.0.0/0", metric: 0, type: "unicast", device: "ds0" },
    ]);
  });

  it("picks the ordinal-th AAAA (wrapping with ordinalModulo), and waits while it cannot know", () => {
    const link = wanLink([{ address: "2001:db8:1::2", prefixLength: 64, scope: "global" }]);
    const two = runtime({ state: "present", value: ["2001:db8:ffff::1", "2001:db8:ffff::2"] }, link);
    const remoteOf = (s: Record<string, unknown>, rt = two) => (intents([{ kind: "DSLiteTunnel", name: "ds0", spec: { ...spec, ...s } }], rt)[0]?.linkData as { remote?: string } | undefined)?.remote;
    expect(remoteOf({ aftrAddressOrdinal: 1 })).toBe("2001:db8:ffff::2");
    expect(remoteOf({ aftrAddressOrdinal: 3, aftrAddressSelection: "ordinalModulo" })).toBe("2001:db8:ffff::2");
    expect(remoteOf({ aftrAddressOrdinal: 3 })).toBeUndefined();
    expect(remoteOf({}, runtime({ state: "unknown", reason: "no DNS answer" }, link))).toBeUndefined();
    const r = load([{ kind: "DSLiteTunnel", name: "ds0", spec }]);
    const res = r.config!.resources.at(-1)!;
    expect(kindDefinition("DSLiteTunnel")!.holdsExisting!(res, makeConfigView(r.config!, runtime({ state: "unknown", reason: "no DNS answer" }, link)))).toMatch(/no DNS answer/);
  });

  it("wants exactly one way to the AFTR", () => {
    expect(errors([{ kind: "DSLiteTunnel", name: "ds0", spec: { interface: "wan", aftrIPv6: "2001:db8::1", aftrFQDN: "aftr.example" } }])).toEqual([
      "DSLiteTunnel/ds0 spec.aftrIPv6: give exactly one of aftrIPv6, aftrFQDN and aftrFrom",
    ]);
  });
});
