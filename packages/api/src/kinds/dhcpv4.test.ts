// DHCPv4Client: the lease routerd-dhcpv4-client reports becomes the resource's artifacts; validation keeps
// two uplinks from fighting over one default route.
import { describe, expect, it } from "vitest";
import { makeConfigView } from "../config-view.js";
import { loadConfig } from "../load.js";
import { runtimeFrom, type Dhcpv4Lease, type RuntimeFact } from "../runtime.js";
import { kindDefinition } from "./index.js";

const doc = (resources: { kind: string; name: string; spec: Record<string, unknown> }[]) =>
  JSON.stringify({
    apiVersion: "routerd.net/v1alpha1",
    kind: "Router",
    metadata: { name: "t" },
    spec: { resources: resources.map((r) => ({ apiVersion: "net.routerd.net/v1alpha1", kind: r.kind, metadata: { name: r.name }, spec: r.spec })) },
  });

const ifaces = [
  { kind: "Interface", name: "wan", spec: { ifname: "eth0" } },
  { kind: "Interface", name: "wan2", spec: { ifname: "eth1" } },
];

function errors(resources: Parameters<typeof doc>[0]): string[] {
  return loadConfig(doc(resources), "t.yaml")
    .issues.filter((i) => i.severity === "error")
    .map((i) => `${i.resource} ${i.field}: ${i.message}`);
}

const LEASE: Dhcpv4Lease = {
  address: "192.0.2.9",
  prefixLength: 24,
  routers: ["192.0.2.1"],
  dnsServers: ["192.0.2.53"],
  domain: "isp.test",
  classlessRoutes: [],
  serverId: "192.0.2.1",
  expiresAt: "2030-01-01T00:00:00.000Z",
};

function intents(spec: Record<string, unknown>, fact: RuntimeFact<Dhcpv4Lease>) {
  const r = loadConfig(doc([...ifaces, { kind: "DHCPv4Client", name: "isp", spec: { interface: "wan", ...spec } }]), "t.yaml");
  if (!r.config) throw new Error(JSON.stringify(r.issues));
  const view = makeConfigView(r.config, runtimeFrom({ dhcpv4: new Map([["isp", fact]]) }));
  const res = r.config.resources.find((x) => x.kind === "DHCPv4Client")!;
  return kindDefinition("DHCPv4Client")!.intents(res, view).map((i) => ({ kind: i.kind, name: i.name, attributes: i.attributes }));
}

describe("DHCPv4Client validation", () => {
  it("refuses two uplinks installing their routes with the same metric", () => {
    const base = [...ifaces, { kind: "DHCPv4Client", name: "a", spec: { interface: "wan" } }];
    expect(errors([...base, { kind: "DHCPv4Client", name: "b", spec: { interface: "wan2" } }])).toEqual([
      expect.stringMatching(/DHCPv4Client\/b .*routeMetric.*DHCPv4Client\/a installs its routes with metric 100 too/),
    ]);
    expect(errors([...base, { kind: "DHCPv4Client", name: "b", spec: { interface: "wan2", routeMetric: 200 } }])).toEqual([]);
    expect(errors([...base, { kind: "DHCPv4Client", name: "b", spec: { interface: "wan2", useRoutes: false } }])).toEqual([]);
  });

  it("refuses a second client on the same interface", () => {
    const e = errors([...ifaces, { kind: "DHCPv4Client", name: "a", spec: { interface: "wan" } }, { kind: "DHCPv4Client", name: "b", spec: { interface: "wan", routeMetric: 5 } }]);
    expect(e).toEqual([expect.stringMatching(/DHCPv4Client\/b .*interface.*already runs DHCPv4Client\/a/)]);
  });
});

describe("DHCPv4Client intents", () => {
  it("wants only its daemon while no lease is held (absent or unknown)", () => {
    for (const fact of [{ state: "absent" } as const, { state: "unknown", reason: "x" } as const]) {
      expect(intents({}, fact)).toEqual([{ kind: "routerd.daemon", name: expect.stringContaining("dhcpv4-client"), attributes: { daemon: "dhcpv4-client", instance: "isp" } }]);
    }
  });

  it("turns a lease into the address, a default route with the metric and a resolver block", () => {
    const out = intents({ routeMetric: 50 }, { state: "present", value: LEASE });
    expect(out.map((i) => i.kind)).toEqual(["routerd.daemon", "linux.ipv4.address", "linux.ipv4.route", "file"]);
    expect(out[1]!.attributes).toEqual({ ifname: "eth0", address: "192.0.2.9", prefixLength: 24 });
    expect(out[2]!.attributes).toEqual({ table: 254, destination: "0.0.0.0/0", metric: 50, type: "unicast", device: "eth0", gateway: "192.0.2.1" });
    expect(out[3]!.attributes).toMatchObject({ path: "/etc/resolv.conf", block: "dhcpv4-isp", content: "nameserver 192.0.2.53\nsearch isp.test\n" });
  });

  it("uses option 121 instead of option 3, with on-link routes without a gateway", () => {
    const lease = { ...LEASE, classlessRoutes: [{ destination: "198.51.100.0/24", gateway: "0.0.0.0" }, { destination: "0.0.0.0/0", gateway: "192.0.2.254" }] };
    const routes = intents({}, { state: "present", value: lease }).filter((i) => i.kind === "linux.ipv4.route");
    expect(routes.map((r) => r.attributes)).toEqual([
      { table: 254, destination: "198.51.100.0/24", metric: 100, type: "unicast", device: "eth0" },
      { table: 254, destination: "0.0.0.0/0", metric: 100, type: "unicast", device: "eth0", gateway: "192.0.2.254" },
    ]);
  });

  it("leaves routes and DNS out when useRoutes and useDNS are off", () => {
    expect(intents({ useRoutes: false, useDNS: false }, { state: "present", value: LEASE }).map((i) => i.kind)).toEqual(["routerd.daemon", "linux.ipv4.address"]);
  });
});
