// Status-sourced values: `*From` validation against the provides tables, `when.state`, and resolution in the
// effective view (present, absent, unknown, optional, lists, chains).
import { describe, expect, it } from "vitest";
import { effectiveView } from "./effective-view.js";
import type { RouterConfig } from "./kind.js";
import { loadConfig } from "./load.js";
import { runtimeFrom, type Dhcpv4Lease, type LinkFacts, type RuntimeFact } from "./runtime.js";
import { makeStatusView } from "./status-view.js";

const API: Record<string, string> = { PortForward: "firewall.routerd.net/v1alpha1", FirewallZone: "firewall.routerd.net/v1alpha1" };
type R = { kind: string; name: string; spec: Record<string, unknown> };
const doc = (resources: R[]) =>
  JSON.stringify({
    apiVersion: "routerd.net/v1alpha1",
    kind: "Router",
    metadata: { name: "t" },
    spec: { resources: resources.map((r) => ({ apiVersion: API[r.kind] ?? "net.routerd.net/v1alpha1", kind: r.kind, metadata: { name: r.name }, spec: r.spec })) },
  });

const BASE: R[] = [
  { kind: "Interface", name: "wan", spec: { ifname: "eth0" } },
  { kind: "Interface", name: "lan", spec: { ifname: "eth1" } },
  { kind: "IPv4StaticAddress", name: "lan", spec: { interface: "lan", address: "192.168.1.1/24" } },
  { kind: "DHCPv4Client", name: "wan", spec: { interface: "wan" } },
];
const server = (spec: Record<string, unknown>): R => ({ kind: "DHCPv4Server", name: "lan", spec: { interface: "lan", addressPool: { start: "192.168.1.100", end: "192.168.1.199" }, ...spec } });

function load(resources: R[]): RouterConfig {
  const r = loadConfig(doc(resources), "t.yaml");
  if (!r.config) throw new Error(r.issues.map((i) => `${i.resource} ${i.field}: ${i.message}`).join("\n"));
  return r.config;
}

function errors(resources: R[]): string[] {
  return loadConfig(doc(resources), "t.yaml")
    .issues.filter((i) => i.severity === "error")
    .map((i) => `${i.resource} ${i.field}: ${i.message}${i.hint ? ` (${i.hint})` : ""}`);
}

const LEASE: Dhcpv4Lease = {
  address: "203.0.113.9",
  prefixLength: 24,
  routers: ["203.0.113.1"],
  dnsServers: ["203.0.113.53", "203.0.113.54"],
  domain: "isp.example",
  classlessRoutes: [],
  expiresAt: "2030-01-01T00:00:00.000Z",
  ntpServers: ["203.0.113.123"],
};
const bound: RuntimeFact<Dhcpv4Lease> = { state: "present", value: LEASE, phase: "Bound" };

function view(resources: R[], lease: RuntimeFact<Dhcpv4Lease> | undefined, links?: Map<string, LinkFacts>) {
  const config = load(resources);
  const status = makeStatusView({ config, runtime: runtimeFrom({ ...(lease ? { dhcpv4: new Map([["wan", lease]]) } : {}), ...(links ? { links } : {}) }) });
  return { config, status, view: effectiveView(config, status, status) };
}

const specOf = (v: ReturnType<typeof view>["view"], kind: string) => v.active.find((r) => r.kind === kind)?.spec as Record<string, unknown> | undefined;

describe("*From validation", () => {
  it("accepts sources whose kind provides the field in a fitting type", () => {
    expect(
      errors([
        ...BASE,
        server({
          gatewayFrom: { resource: "IPv4StaticAddress/lan", field: "address" },
          dnsServerFrom: [{ resource: "DHCPv4Client/wan", field: "dnsServers" }, { resource: "IPv4StaticAddress/lan", field: "address" }],
          domainFrom: { resource: "DHCPv4Client/wan", field: "domain", optional: true },
        }),
      ]),
    ).toEqual([]);
  });

  it("refuses a source that is not defined, at its resource field", () => {
    expect(errors([...BASE, server({ gatewayFrom: { resource: "DHCPv4Client/isp", field: "gateway" } })])).toEqual([
      expect.stringMatching(/^DHCPv4Server\/lan spec\.gatewayFrom\.resource: DHCPv4Client\/isp is not defined/),
    ]);
  });

  it("refuses a field the kind does not provide, listing what it provides", () => {
    const [e] = errors([...BASE, server({ gatewayFrom: { resource: "DHCPv4Client/wan", field: "gw" } })]);
    expect(e).toMatch(/spec\.gatewayFrom\.field: DHCPv4Client does not provide "gw"/);
    expect(e).toMatch(/DHCPv4Client provides: .*currentAddress, gateway, defaultGateway/);
  });

  it("refuses a field of the wrong type, and the phase (default field) where an address is needed", () => {
    expect(errors([...BASE, server({ gatewayFrom: { resource: "DHCPv4Client/wan", field: "leaseTime" } })])).toEqual([
      expect.stringMatching(/spec\.gatewayFrom\.field: DHCPv4Client\/wan\.leaseTime is a int; this field needs an IPv4 address \(.*provides: interface, device, currentAddress/),
    ]);
    expect(errors([...BASE, server({ gatewayFrom: { resource: "DHCPv4Client/wan" } })])).toEqual([
      expect.stringMatching(/spec\.gatewayFrom: reads DHCPv4Client\/wan's phase \(the default field\), but needs an IPv4 address \(name the field/),
    ]);
  });

  it("refuses a value and its *From together", () => {
    expect(errors([...BASE, server({ gateway: "192.168.1.1", gatewayFrom: { resource: "DHCPv4Client/wan", field: "gateway" } })])).toEqual([
      expect.stringMatching(/spec\.gatewayFrom: gateway is set too \(keep either gateway or gatewayFrom\)/),
    ]);
  });

  it("refuses a cycle of sources", () => {
    const second: R = { ...server({ dnsServerFrom: [{ resource: "DHCPv4Server/lan", field: "dnsServers" }] }), name: "guest" };
    second.spec.interface = "wan";
    const e = errors([...BASE, { kind: "IPv4StaticAddress", name: "wan", spec: { interface: "wan", address: "10.0.0.1/24" } }, server({ dnsServerFrom: [{ resource: "DHCPv4Server/guest", field: "dnsServers" }] }), { ...second, spec: { ...second.spec, addressPool: { start: "10.0.0.100", end: "10.0.0.200" } } }]);
    expect(e).toEqual([expect.stringMatching(/status sources form a cycle: DHCPv4Server\/lan → DHCPv4Server\/guest → DHCPv4Server\/lan/)]);
  });

  it("checks when.state keys against the provides table", () => {
    const route = (when: unknown): R => ({ kind: "IPv4Route", name: "r", spec: { destination: "10.0.0.0/8", device: "wan", when } });
    expect(errors([...BASE, route({ state: { "${DHCPv4Client/wan.status.currentAddress}": { exists: true } } })])).toEqual([]);
    expect(errors([...BASE, route({ state: { "${DHCPv4Client/wan.status.address}": { exists: true } } })])).toEqual([
      expect.stringMatching(/IPv4Route\/r spec\.when\.state\.\$\{DHCPv4Client\/wan\.status\.address\}: DHCPv4Client does not provide "address" \(DHCPv4Client provides: phase, interface/),
    ]);
    expect(errors([...BASE, route({ state: { "DHCPv4Client/wan.phase": { equals: "Bound" } } })])).toEqual([expect.stringMatching(/is not a key like \$\{DHCPv4Client\/wan\.status\.phase\}/)]);
    expect(errors([...BASE, route({ state: { "${DHCPv4Client/wan.status.phase}": { equals: "Bound", for: "30s" } } })])).toEqual([expect.stringMatching(/for: is not supported/)]);
  });
});

describe("*From resolution in the effective view", () => {
  const spec = server({
    gatewayFrom: { resource: "IPv4StaticAddress/lan", field: "address" },
    dnsServers: ["192.168.1.1", "203.0.113.53"],
    dnsServerFrom: [{ resource: "DHCPv4Client/wan", field: "dnsServers" }],
    domainFrom: { resource: "DHCPv4Client/wan", field: "domain", optional: true },
  });

  it("fills the values in (an address without its prefix length, lists merged without duplicates)", () => {
    const v = view([...BASE, spec], bound).view;
    expect(v.pending).toEqual([]);
    expect(specOf(v, "DHCPv4Server")).toMatchObject({ gateway: "192.168.1.1", dnsServers: ["192.168.1.1", "203.0.113.53", "203.0.113.54"], domain: "isp.example" });
    // The config itself is untouched; the resolved copy keeps owner and index.
    const original = v.config.resources.find((r) => r.kind === "DHCPv4Server")!;
    expect(original.spec).not.toHaveProperty("gateway");
    expect(v.active.find((r) => r.kind === "DHCPv4Server")).toMatchObject({ owner: original.owner, index: original.index });
  });

  it("keeps the resource pending while a required source has no value, or is unknown", () => {
    const absent = view([...BASE, spec], { state: "absent", reason: "phase Init", phase: "Init" }).view;
    expect(absent.active.map((r) => r.kind)).not.toContain("DHCPv4Server");
    expect(absent.pending).toEqual([{ resource: expect.objectContaining({ kind: "DHCPv4Server" }), reason: "DHCPv4Client/wan.dnsServers has no value yet" }]);
    const unknown = view([...BASE, spec], undefined).view;
    expect(unknown.pending[0]!.reason).toMatch(/DHCPv4Client\/wan\.dnsServers is unknown: DHCPv4 lease unknown/);
  });

  it("leaves an optional source that has no value unset", () => {
    const v = view([...BASE, spec], { state: "present", value: { ...LEASE, domain: undefined }, phase: "Bound" }).view;
    expect(specOf(v, "DHCPv4Server")).not.toHaveProperty("domain");
  });

  it("a single field takes the first value of a list; a list takes all of it", () => {
    const s = server({ gatewayFrom: { resource: "DHCPv4Client/wan", field: "dnsServers" }, ntpServerFrom: [{ resource: "DHCPv4Client/wan", field: "ntpServers" }] });
    expect(specOf(view([...BASE, s], bound).view, "DHCPv4Server")).toMatchObject({ gateway: "203.0.113.53", ntpServers: ["203.0.113.123"] });
  });

  it("a value of the wrong shape keeps the resource pending with the reason", () => {
    const s = server({ domainFrom: { resource: "DHCPv4Client/wan", field: "dnsServers" } });
    expect(view([...BASE, s], bound).view.active.some((r) => r.kind === "DHCPv4Server")).toBe(true); // an address is a host name too
    const g = server({ gatewayFrom: { resource: "DHCPv4Client/wan", field: "domain" } });
    expect(view([...BASE, g], bound).view.pending[0]!.reason).toBe('DHCPv4Client/wan.domain: "isp.example" is not an IPv4 address');
  });

  it("reads an Interface's addresses from the host's links; a source's own sources are resolved first", () => {
    const links = new Map<string, LinkFacts>([["eth1", { ifname: "eth1", adminUp: true, operstate: "UP", mac: "02:00:00:00:00:01", ipv4: [{ address: "192.168.1.1", prefixLength: 24 }], ipv6: [{ address: "fe80::1", prefixLength: 64, scope: "link" }] }]]);
    const guest: R = { kind: "DHCPv4Server", name: "guest", spec: { interface: "wan", addressPool: { start: "10.0.0.100", end: "10.0.0.200" }, dnsServerFrom: [{ resource: "DHCPv4Server/lan", field: "dnsServers" }] } };
    const resources = [...BASE, { kind: "IPv4StaticAddress", name: "wan", spec: { interface: "wan", address: "10.0.0.1/24" } }, server({ dnsServerFrom: [{ resource: "Interface/lan", field: "primaryIPv4" }] }), guest];
    const { view: v, status } = view(resources, bound, links);
    expect(specOf(v, "DHCPv4Server")).toMatchObject({ dnsServers: ["192.168.1.1"] });
    expect(v.active.find((r) => r.metadata.name === "guest")!.spec).toMatchObject({ dnsServers: ["192.168.1.1"] });
    expect(status.published("Interface/lan")).toEqual({
      phase: "Up",
      fields: { ifname: "eth1", macAddress: "02:00:00:00:00:01", addresses: ["192.168.1.1"], ipv4Addresses: ["192.168.1.1"], ipv6Addresses: [], primaryIPv4: "192.168.1.1", primaryIPv6: undefined },
    });
    // Links not read: an Interface's addresses are unknown, so what reads them waits.
    expect(view(resources, bound).view.pending.map((p) => p.resource.metadata.name)).toEqual(["lan", "guest"]);
  });
});

describe("when.state", () => {
  const route = (when: unknown): R => ({ kind: "IPv4Route", name: "r", spec: { destination: "10.0.0.0/8", device: "wan", when } });
  const state = (when: unknown, lease: RuntimeFact<Dhcpv4Lease> | null = bound) => {
    const v = view([...BASE, route(when)], lease ?? undefined).view;
    return v.active.some((r) => r.kind === "IPv4Route") ? true : v.inactive.length ? false : undefined;
  };
  const key = (field: string) => `\${DHCPv4Client/wan.status.${field}}`;

  it.each([
    [{ [key("phase")]: { equals: "Bound" } }, true],
    [{ [key("phase")]: { in: ["Renewing", "Rebinding"] } }, false],
    [{ [key("dnsServers")]: { contains: "203.0.113.54" } }, true],
    [{ [key("domain")]: { contains: "isp" } }, true],
    [{ [key("currentAddress")]: { exists: true }, [key("gateway")]: { equals: "203.0.113.1" } }, true],
    [{ [key("currentAddress")]: {} }, true],
    [{ [key("currentAddress")]: { status: "unset" } }, false],
  ])("%j → %s", (s, expected) => {
    expect(state({ state: s })).toBe(expected);
  });

  it("is undecidable while the field is unknown, unless it asks for exactly that", () => {
    expect(state({ state: { [key("currentAddress")]: { exists: true } } }, null)).toBeUndefined();
    expect(state({ state: { [key("currentAddress")]: { status: "unknown" } } }, null)).toBe(true);
    expect(state({ state: { [key("currentAddress")]: { status: "unset" } } }, { state: "absent", phase: "Init" })).toBe(true);
  });

  it("combines state with all/any, and routerd's own forms still work", () => {
    expect(state({ state: { [key("phase")]: { equals: "Bound" } }, any: [{ resource: "DHCPv4Client/wan", phase: "Init" }, { state: { [key("domain")]: { equals: "isp.example" } } }] })).toBe(true);
    expect(state({ all: [{ resource: "DHCPv4Client/wan", phase: "Bound" }, { not: { resource: "DHCPv4Client/wan", phase: "Bound" } }] })).toBe(false);
  });
});
