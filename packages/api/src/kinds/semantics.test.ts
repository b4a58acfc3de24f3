// Semantic rules of each kind: one defect per case in an otherwise valid config; the loader must report
// exactly the expected errors, at the right resource and field.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../load.js";
import { KINDS } from "./index.js";

const HEAD = "apiVersion: routerd.net/v1alpha1\nkind: Router\nmetadata: { name: test }\nspec:\n  resources:\n";
const res = (kind: string, name: string, spec: string) =>
  `    - apiVersion: ${KINDS.find((k) => k.kind === kind)!.apiVersion}\n      kind: ${kind}\n      metadata: { name: ${name} }\n      spec: ${spec}\n`;
const BASE = [
  res("Interface", "wan", "{ ifname: wan0 }"),
  res("Interface", "lan", "{ ifname: lan0 }"),
  res("Interface", "dmz", "{ ifname: dmz0 }"),
  res("HealthCheck", "isp1", "{ type: icmp, target: 192.0.2.1 }"),
];
const zones = res("FirewallZone", "untrust", "{ role: untrust, interfaces: [wan] }") + res("FirewallZone", "trust", "{ role: trust, interfaces: [lan] }");
const egress = (name: string, candidates: string) => res("EgressRoutePolicy", name, `{ candidates: [${candidates}] }`);
const cand = (name: string, table: number, mark: string | number, priority: number) =>
  `{ name: ${name}, interface: wan, table: ${table}, mark: ${JSON.stringify(mark)}, priority: ${priority} }`;

interface Case {
  name: string;
  resources: string[];
  /** [resource, field, message] of every error expected, in file order. */
  errors: [string, string, RegExp][];
}

const cases: Case[] = [
  {
    name: "NAT44Rule snat without snatAddress",
    resources: [res("NAT44Rule", "n", "{ type: snat, egressInterface: wan }")],
    errors: [["NAT44Rule/n", "spec.snatAddress", /is required when type is snat/]],
  },
  {
    name: "NAT44Rule masquerade with snatAddress",
    resources: [res("NAT44Rule", "n", "{ egressInterface: wan, snatAddress: 192.0.2.9 }")],
    errors: [["NAT44Rule/n", "spec.snatAddress", /only applies to type snat/]],
  },
  {
    name: "IPv4Route blackhole with a gateway",
    resources: [res("IPv4Route", "r", "{ destination: 10.0.0.0/8, type: blackhole, gateway: 192.0.2.1 }")],
    errors: [["IPv4Route/r", "spec.gateway", /a blackhole route takes no gateway, device or preferred source/]],
  },
  {
    name: "IPv4Route blackhole with a device",
    resources: [res("IPv4Route", "r", "{ destination: 10.0.0.0/8, type: blackhole, device: wan }")],
    errors: [["IPv4Route/r", "spec.device", /takes no gateway, device or preferred source/]],
  },
  {
    name: "IPv4Route unicast with neither gateway nor device",
    resources: [res("IPv4Route", "r", "{ destination: 10.0.0.0/8 }")],
    errors: [["IPv4Route/r", "spec", /needs a gateway, a device or both/]],
  },
  {
    name: "IPv4Route in a kernel-reserved table",
    resources: [res("IPv4Route", "r", "{ destination: 10.0.0.0/8, device: wan, table: 255 }")],
    errors: [["IPv4Route/r", "spec.table", /table 255 is reserved by the kernel/]],
  },
  {
    name: "EgressRoutePolicy mark outside 0x100-0x1ff (hex string and integer)",
    resources: [egress("p", `${cand("a", 101, "0x200", 1101)}, ${cand("b", 102, 255, 1102)}`)],
    errors: [
      ["EgressRoutePolicy/p", "spec.candidates[0].mark", /mark 0x200 is outside routerd's range 0x100-0x1ff/],
      ["EgressRoutePolicy/p", "spec.candidates[1].mark", /mark 0xff is outside/],
    ],
  },
  {
    name: "EgressRoutePolicy duplicate marks within one policy (0x101 and 257 are the same mark)",
    resources: [egress("p", `${cand("a", 101, "0x101", 1101)}, ${cand("b", 102, 257, 1102)}`)],
    errors: [["EgressRoutePolicy/p", "spec.candidates[1].mark", /same mark as candidates\[0\]/]],
  },
  {
    name: "EgressRoutePolicy duplicate name, table and priority within one policy",
    resources: [egress("p", `${cand("a", 101, "0x101", 1101)}, ${cand("a", 101, "0x102", 1101)}`)],
    errors: [
      ["EgressRoutePolicy/p", "spec.candidates[1].name", /same name as candidates\[0\]/],
      ["EgressRoutePolicy/p", "spec.candidates[1].table", /same table/],
      ["EgressRoutePolicy/p", "spec.candidates[1].priority", /same priority/],
    ],
  },
  {
    name: "EgressRoutePolicy marks and priorities shared between two policies",
    resources: [egress("p", cand("a", 101, "0x101", 1101)), egress("q", cand("a", 102, 257, 1101))],
    errors: [
      ["EgressRoutePolicy/q", "spec.candidates[0].mark", /already used by EgressRoutePolicy\/p/],
      ["EgressRoutePolicy/q", "spec.candidates[0].priority", /already used by EgressRoutePolicy\/p/],
    ],
  },
  {
    name: "HealthCheck tcp without port",
    resources: [res("HealthCheck", "h", "{ type: tcp, target: 192.0.2.1 }")],
    errors: [["HealthCheck/h", "spec.port", /is required for a tcp probe/]],
  },
  {
    name: "HealthCheck icmp with a port",
    resources: [res("HealthCheck", "h", "{ type: icmp, target: 192.0.2.1, port: 7 }")],
    errors: [["HealthCheck/h", "spec.port", /an icmp probe has no port/]],
  },
  {
    name: "HealthCheck dns without query, path on dns, timeout not below interval",
    resources: [res("HealthCheck", "h", "{ type: dns, target: 192.0.2.53, path: /x, interval: 1s, timeout: 1s }")],
    errors: [
      // A missing field is located at its parent mapping.
      ["HealthCheck/h", "spec.query", /is required for a dns probe/],
      ["HealthCheck/h", "spec.path", /only applies to http and https probes/],
      ["HealthCheck/h", "spec.timeout", /must be shorter than interval \(1s\)/],
    ],
  },
  {
    name: "HealthCheck query and expectStatus on a tcp probe",
    resources: [res("HealthCheck", "h", "{ type: tcp, target: 192.0.2.1, port: 22, query: { name: example.com }, expectStatus: [200] }")],
    errors: [
      ["HealthCheck/h", "spec.query", /only applies to dns probes/],
      ["HealthCheck/h", "spec.expectStatus", /only applies to http and https/],
    ],
  },
  {
    name: "FirewallRule port on an icmp rule",
    resources: [zones, res("FirewallRule", "r", "{ fromZone: untrust, toZone: self, protocol: icmp, port: 22, action: accept }")],
    errors: [["FirewallRule/r", "spec.port", /a port needs protocol tcp or udp \(protocol is icmp\)/]],
  },
  {
    name: "two FirewallPolicies",
    resources: [zones, res("FirewallPolicy", "a", "{}"), res("FirewallPolicy", "b", "{}")],
    errors: [["FirewallPolicy/b", "spec", /only one FirewallPolicy is allowed \(first is FirewallPolicy\/a\)/]],
  },
  {
    name: "an interface in two zones",
    resources: [zones, res("FirewallZone", "more", "{ role: trust, interfaces: [dmz, lan] }")],
    errors: [["FirewallZone/more", "spec.interfaces[1]", /Interface lan is already in FirewallZone\/trust/]],
  },
  {
    name: "a zone named self",
    resources: [res("FirewallZone", "self", "{ role: trust, interfaces: [lan] }")],
    errors: [["FirewallZone/self", "spec", /reserved for the router itself/]],
  },
  {
    name: "duplicate port forwards",
    resources: [
      res("PortForward", "a", "{ listen: { interface: wan, protocol: tcp, port: 443 }, target: { address: 192.168.1.2 } }"),
      res("PortForward", "b", "{ listen: { interface: wan, protocol: tcp, port: 443 }, target: { address: 192.168.1.3 } }"),
      res("PortForward", "c", "{ listen: { interface: wan, protocol: udp, port: 443 }, target: { address: 192.168.1.3 } }"),
    ],
    errors: [["PortForward/b", "spec.listen.port", /tcp port 443 on wan is already forwarded by PortForward\/a/]],
  },
  {
    name: "a port range forwarded to a single target port",
    resources: [res("PortForward", "a", '{ listen: { interface: wan, protocol: udp, port: "1000-1010" }, target: { address: 192.168.1.2, port: 1000 } }')],
    errors: [["PortForward/a", "spec.target.port", /a port range forwards to the same ports/]],
  },
  {
    name: "conflicting sysctls (a Sysctl against a SysctlProfile)",
    resources: [res("SysctlProfile", "router", "{ profile: router-linux }"), res("Sysctl", "no-forward", "{ key: net.ipv4.ip_forward, value: 0 }")],
    errors: [
      ["SysctlProfile/router", "spec", /conflicts with another resource: artifact linux.sysctl\/net.ipv4.ip_forward/],
      ["Sysctl/no-forward", "spec", /conflicts with another resource/],
    ],
  },
  {
    name: "two conflicts in one config are both reported",
    resources: [
      res("Sysctl", "a", "{ key: net.ipv4.ip_forward, value: 1 }"),
      res("Sysctl", "b", "{ key: net.ipv4.ip_forward, value: 0 }"),
      res("Sysctl", "c", "{ key: net.ipv6.conf.all.forwarding, value: 1 }"),
      res("Sysctl", "d", "{ key: net.ipv6.conf.all.forwarding, value: 0 }"),
      res("Sysctl", "e", "{ key: net.ipv6.conf.all.forwarding, value: true }"),
    ],
    errors: [
      ["Sysctl/a", "spec", /linux.sysctl\/net.ipv4.ip_forward/],
      ["Sysctl/b", "spec", /linux.sysctl\/net.ipv4.ip_forward/],
      ["Sysctl/c", "spec", /linux.sysctl\/net.ipv6.conf.all.forwarding/],
      ["Sysctl/d", "spec", /linux.sysctl\/net.ipv6.conf.all.forwarding/],
    ],
  },
  {
    name: "two IPv4StaticAddresses with the same address",
    resources: [res("IPv4StaticAddress", "a", "{ interface: lan, address: 192.168.1.1/24 }"), res("IPv4StaticAddress", "b", "{ interface: dmz, address: 192.168.1.1/25 }")],
    errors: [["IPv4StaticAddress/b", "spec.address", /already assigned by IPv4StaticAddress\/a/]],
  },
  {
    name: "two Hostnames, two RouterdClusters, a short lease ttl",
    resources: [
      res("Hostname", "a", "{ hostname: r1.example.net }"),
      res("Hostname", "b", "{ hostname: r2.example.net }"),
      res("RouterdCluster", "c1", "{ leasePath: /var/lib/routerd/lease }"),
      res("RouterdCluster", "c2", "{ leasePath: /var/lib/routerd/lease2, ttl: 2s }"),
    ],
    errors: [
      ["Hostname/a", "spec", /conflicts with another resource: artifact linux.hostname\/system/],
      ["Hostname/b", "spec", /conflicts with another resource/],
      ["Hostname/b", "spec.hostname", /only one Hostname resource is allowed/],
      ["RouterdCluster/c2", "spec", /only one RouterdCluster is allowed/],
      ["RouterdCluster/c2", "spec.ttl", /must be at least 3s/],
    ],
  },
  {
    name: "when referring to a missing resource",
    resources: [res("IPv4Route", "r", "{ destination: 10.0.0.0/8, device: wan, when: { all: [{ resource: HealthCheck/isp1 }, { not: { resource: HealthCheck/isp2 } }] } }")],
    errors: [["IPv4Route/r", "spec.when", /when refers to HealthCheck\/isp2, which is not defined/]],
  },
  {
    name: "when on a kind that does not support it",
    resources: [res("FirewallZone", "z", "{ role: trust, interfaces: [lan], when: { resource: HealthCheck/isp1 } }")],
    errors: [["FirewallZone/z", "spec.when", /FirewallZone does not support when/]],
  },
  {
    name: "a malformed when predicate",
    resources: [res("IPv4Route", "r", "{ destination: 10.0.0.0/8, device: wan, when: { resource: isp1 } }")],
    errors: [["IPv4Route/r", "spec.when.resource", /is not Kind\/name/]],
  },
];

describe("semantic rules", () => {
  it.each(cases)("$name", (c) => {
    const text = HEAD + [...BASE, ...c.resources].join("");
    const r = loadConfig(text, "f.yaml");
    const errs = r.issues.filter((i) => i.severity === "error");
    expect(r.config).toBeUndefined();
    expect(errs.map((e) => [e.resource, e.field])).toEqual(c.errors.map(([resource, field]) => [resource, field]));
    c.errors.forEach(([, , message], i) => expect(errs[i]!.message).toMatch(message));
    for (const e of errs) expect(e.line).toBeGreaterThan(5);
  });

  it("the base config of these cases is itself valid", () => {
    const r = loadConfig(HEAD + BASE.join(""), "f.yaml");
    expect(r.issues).toEqual([]);
  });

  it("every error-producing case turns valid once its defect is gone (cases are minimal)", () => {
    // The sharing cases are valid with only their first resource.
    for (const c of cases.filter((x) => x.resources.length > 1 && !x.resources[0]!.includes("FirewallZone"))) {
      const r = loadConfig(HEAD + [...BASE, c.resources[0]!].join(""), "f.yaml");
      expect(r.issues.filter((i) => i.severity === "error"), c.name).toEqual([]);
    }
  });
});
