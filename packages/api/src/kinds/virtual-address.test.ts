// VirtualAddress: what validation refuses (with the field and a hint), and the intents of each mode.
import { describe, expect, it } from "vitest";
import { makeConfigView } from "../config-view.js";
import { loadConfig } from "../load.js";
import { kindDefinition } from "./index.js";
import { virtualAddress, type VirtualAddressSpec } from "./virtual-address.js";

const HEAD = "apiVersion: routerd.net/v1alpha1\nkind: Router\nmetadata: { name: va }\nspec:\n  resources:\n";
const doc = (kind: string, name: string, spec: string) => `    - apiVersion: net.routerd.net/v1alpha1\n      kind: ${kind}\n      metadata: { name: ${name} }\n      spec: ${spec}\n`;
const BASE = doc("Interface", "lan", "{ ifname: lan0, managed: false }") + doc("HealthCheck", "up", "{ type: icmp, target: 192.0.2.1 }");

const load = (...va: string[]) => loadConfig(HEAD + BASE + va.map((s, i) => doc("VirtualAddress", `va${i}`, s)).join(""), "router.yaml");
const errors = (...va: string[]) => load(...va).issues.filter((i) => i.severity === "error").map((i) => `${i.resource} ${i.field}: ${i.message}`);

describe("VirtualAddress validation", () => {
  it("accepts the original's fields", () => {
    expect(errors("{ family: ipv4, interface: lan, address: 192.0.2.254/24, mode: vrrp, vrrp: { virtualRouterID: 7, priority: 200, preempt: false }, track: [{ resource: HealthCheck/up, unhealthyPenalty: 50, confirmConsecutiveHealthy: 3 }] }")).toEqual([]);
    expect(errors("{ family: ipv6, interface: lan, address: 2001:db8::1 }")).toEqual([]);
  });

  it("refuses what it cannot do, naming the field", () => {
    const cases: [string, RegExp][] = [
      ["{ family: ipv6, interface: lan, address: 192.0.2.1 }", /address: is not an IPv6 address but family is ipv6/],
      ["{ family: ipv4, interface: lan, address: 192.0.2.1/33 }", /address: .* is not an IP address/],
      ["{ family: ipv4, interface: lan }", /address: is required/],
      ["{ family: ipv4, interface: lan, address: 192.0.2.1, vrrp: { virtualRouterID: 1 } }", /vrrp: only applies with mode: vrrp/],
      ["{ family: ipv4, interface: lan, address: 192.0.2.1, mode: vrrp }", /vrrp: is required with mode: vrrp/],
      ["{ family: ipv4, interface: lan, address: 192.0.2.1, mode: vrrp, vrrp: { virtualRouterID: 1 }, track: [{ resource: HealthCheck/nope }] }", /track\[0\].resource: HealthCheck\/nope does not exist/],
      ["{ family: ipv6, interface: lan, address: 2001:db8::1, mode: vrrp, vrrp: { virtualRouterID: 1, authentication: x } }", /authentication: VRRPv3/],
      ["{ family: ipv4, interface: lan, address: 192.0.2.1, mode: vrrp, vrrp: { virtualRouterID: 1, authentication: x, advertisementInterval: 500ms } }", /advertisementInterval: VRRPv2/],
      ["{ family: ipv4, interface: lan, address: 192.0.2.1, mode: vrrp, vrrp: { virtualRouterID: 1, failoverVMAC: { interface: vmac0, macAddress: 00:00:5e:00:01:01, parentInterface: lan } } }", /failoverVMAC: is not supported yet/],
      ["{ family: ipv4, interface: lan, address: 192.0.2.1, mode: vrrp, vrrp: { virtualRouterID: 1, peers: [2001:db8::2] } }", /peers: every peer must be an ipv4 address/],
    ];
    for (const [spec, message] of cases) expect(errors(spec).join("\n"), spec).toMatch(message);
  });

  it("one virtual router ID per interface and family", () => {
    const vrrp = (addr: string) => `{ family: ipv4, interface: lan, address: ${addr}, mode: vrrp, vrrp: { virtualRouterID: 9 } }`;
    expect(errors(vrrp("192.0.2.1"), vrrp("192.0.2.2"))).toEqual([expect.stringMatching(/virtualRouterID: 9 is already used on lan by VirtualAddress\/va0/)]);
  });
});

describe("VirtualAddress intents", () => {
  const intents = (spec: string) => {
    const loaded = load(spec);
    const view = makeConfigView(loaded.config!);
    const r = view.all<VirtualAddressSpec>("VirtualAddress")[0]!;
    return kindDefinition("VirtualAddress")!.intents(r, view);
  };

  it("static IPv4: the address, announced by the executor", () => {
    expect(intents("{ family: ipv4, interface: lan, address: 192.0.2.53 }")).toEqual([
      expect.objectContaining({ kind: "linux.ipv4.address", name: "lan0/192.0.2.53/32", attributes: { ifname: "lan0", address: "192.0.2.53", prefixLength: 32, gratuitousARP: true } }),
    ]);
  });

  it("static IPv6: the address and ndisc_notify for the kernel's unsolicited NA", () => {
    expect(intents("{ family: ipv6, interface: lan, address: 2001:db8::53/64 }").map((i) => [i.kind, i.name])).toEqual([
      ["linux.ipv6.address", "lan0/2001:db8::53/64"],
      ["linux.sysctl", "net.ipv6.conf.lan0.ndisc_notify"],
    ]);
    expect(intents("{ family: ipv6, interface: lan, address: 2001:db8::53/64, gratuitousARP: false }").map((i) => i.kind)).toEqual(["linux.ipv6.address"]);
  });

  it("vrrp: no address of routerd's (keepalived holds it), only the keepalived daemon", () => {
    expect(intents("{ family: ipv4, interface: lan, address: 192.0.2.1, mode: vrrp, vrrp: { virtualRouterID: 1 } }")).toEqual([
      expect.objectContaining({ kind: "routerd.daemon", name: "keepalived/default" }),
    ]);
  });

  it("a bare address is a host address", () => {
    expect(virtualAddress({ address: "2001:db8::1" } as VirtualAddressSpec)).toEqual({ address: "2001:db8::1", prefixLength: 128 });
    expect(virtualAddress({ address: "192.0.2.1/24" } as VirtualAddressSpec)).toEqual({ address: "192.0.2.1", prefixLength: 24 });
  });
});
