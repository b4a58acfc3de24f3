// Daemon configs keep a resource's last resolved values while its source is briefly unknown, and only then.
import { effectiveView, loadConfig, makeStatusView, runtimeFrom, type Dhcpv4Lease, type RouterConfig, type RuntimeFact } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { daemonResources, nextResolved, type ResolvedEntry } from "./resolved.js";

const NET = "net.routerd.net/v1alpha1";
function config(upstreamSpec: Record<string, unknown>): RouterConfig {
  const resources = [
    { apiVersion: NET, kind: "Interface", metadata: { name: "wan" }, spec: { ifname: "eth0" } },
    { apiVersion: NET, kind: "DHCPv4Client", metadata: { name: "wan" }, spec: { interface: "wan" } },
    { apiVersion: NET, kind: "DNSUpstream", metadata: { name: "isp" }, spec: { protocol: "udp", ...upstreamSpec } },
  ];
  const r = loadConfig(JSON.stringify({ apiVersion: "routerd.net/v1alpha1", kind: "Router", metadata: { name: "t" }, spec: { resources } }), "t.yaml");
  if (!r.config) throw new Error(r.issues.map((i) => `${i.resource} ${i.field}: ${i.message}`).join("\n"));
  return r.config;
}

const lease = (dns: string): RuntimeFact<Dhcpv4Lease> => ({
  state: "present",
  phase: "Bound",
  value: { address: "203.0.113.9", prefixLength: 24, routers: ["203.0.113.1"], dnsServers: [dns], classlessRoutes: [], expiresAt: "2030-01-01T00:00:00.000Z" },
});
const UNKNOWN: RuntimeFact<Dhcpv4Lease> = { state: "unknown", reason: "daemon not answering" };

function effective(cfg: RouterConfig, fact: RuntimeFact<Dhcpv4Lease>) {
  const status = makeStatusView({ config: cfg, runtime: runtimeFrom({ dhcpv4: new Map([["wan", fact]]) }) });
  return effectiveView(cfg, status, status);
}
const cycle = (cfg: RouterConfig, fact: RuntimeFact<Dhcpv4Lease>, previous: Map<string, ResolvedEntry>) => nextResolved(previous, effective(cfg, fact));
const upstreamAddresses = (m: Map<string, ResolvedEntry>) =>
  [...m.values()].filter((e) => e.resource.kind === "DNSUpstream").map((e) => (e.resource.spec as { addresses: string[] }).addresses);

describe("resolved resources for daemon configs", () => {
  const fromLease = { addressFrom: [{ resource: "DHCPv4Client/wan", field: "dnsServers" }] };

  it("keeps the last resolved values while the source is unknown, and follows a new value", () => {
    const cfg = config(fromLease);
    const first = cycle(cfg, lease("203.0.113.53"), new Map());
    expect(upstreamAddresses(first)).toEqual([["203.0.113.53"]]);
    const blip = cycle(cfg, UNKNOWN, first);
    expect(upstreamAddresses(blip)).toEqual([["203.0.113.53"]]);
    // The daemon configs are written from the kept copy while the upstream itself is pending.
    const unknownView = effective(cfg, UNKNOWN);
    expect(unknownView.pending.map((p) => p.resource.metadata.name)).toEqual(["isp"]);
    const forDaemons = daemonResources(unknownView, blip).find((r) => r.kind === "DNSUpstream");
    expect((forDaemons?.spec as { addresses: string[] }).addresses).toEqual(["203.0.113.53"]);
    const moved = cycle(cfg, lease("203.0.113.54"), blip);
    expect(upstreamAddresses(moved)).toEqual([["203.0.113.54"]]);
  });

  it("forgets them when the config changed the resource meanwhile", () => {
    const first = cycle(config(fromLease), lease("203.0.113.53"), new Map());
    const edited = cycle(config({ ...fromLease, port: 5353 }), UNKNOWN, first);
    expect(upstreamAddresses(edited)).toEqual([]);
  });

  it("forgets them when the resource no longer takes a value from status", () => {
    const first = cycle(config(fromLease), lease("203.0.113.53"), new Map());
    const cfg = config({ address: "192.0.2.53" });
    expect(upstreamAddresses(cycle(cfg, UNKNOWN, first))).toEqual([]);
  });
});
