// examples/original-config.yaml is a home router written for the original routerd. It validates unchanged,
// and plans: with its uplinks' leases known, values from status fill the LAN services, the policy's
// candidates get numbers routerd picked, and nothing is pending; without them, the dependents wait.
import { readFileSync } from "node:fs";
import { allocateEgressNumbers, loadConfig, runtimeFrom, type Dhcpv4Lease, type DelegatedPrefix, type EgressRoutePolicySpec, type Resource, type RouterConfig, type RuntimeView } from "@routerd/api";
import { Ledger, knownKind, type ArtifactKind, type Inventory } from "@routerd/resource";
import { describe, expect, it } from "vitest";
import { computeDesired } from "./desired.js";
import { plan } from "./plan.js";
import { statusViewFor } from "./status.js";

const FILE = new URL("../../../../examples/original-config.yaml", import.meta.url);

function load(): RouterConfig {
  const r = loadConfig(readFileSync(FILE, "utf8"), "original-config.yaml");
  expect(r.issues).toEqual([]);
  return r.config!;
}

const lease = (address: string, gateway: string, dns: string[], domain?: string) => ({
  state: "present" as const,
  phase: "Bound",
  value: { address, prefixLength: 24, routers: [gateway], dnsServers: dns, classlessRoutes: [], expiresAt: "2030-01-01T00:00:00Z", ...(domain ? { domain } : {}) } satisfies Dhcpv4Lease,
});
const PREFIX: DelegatedPrefix = { prefix: "2001:db8:1200:10::", prefixLength: 60, preferredLifetime: 3600, validLifetime: 7200, expiresAt: "2030-01-01T00:00:00Z", dnsServers: ["2001:db8::53"], domainSearch: [] };
const LEASED = runtimeFrom({
  dhcpv4: new Map([
    ["wan", lease("203.0.113.7", "203.0.113.1", ["203.0.113.53", "203.0.113.54"], "isp.example")],
    ["lte", lease("10.64.0.9", "10.64.0.1", ["10.64.0.53"])],
  ]),
  prefixes: new Map([["wan-pd", { state: "present", value: PREFIX }]]),
});

function planWith(config: RouterConfig, runtime: RuntimeView) {
  const policies = config.resources.filter((r): r is Resource<EgressRoutePolicySpec> => r.kind === "EgressRoutePolicy");
  const egress = allocateEgressNumbers({ policies, recorded: new Map(), foreign: { tables: new Set(), marks: new Set(), priorities: new Set() } });
  const status = statusViewFor(config, runtime, new Map(), { egress });
  const desired = computeDesired({ config, when: status, sources: status, egress, runtime, stateDir: "/var/lib/routerd" });
  // An empty host: every kind observed, nothing on it.
  const inventory: Inventory = new Map([...new Set(desired.desired.map((d) => d.kind))].map((k) => [k as ArtifactKind, knownKind([])]));
  return { desired, plan: plan({ desired, inventory, ledger: new Ledger(), statuses: new Map(), allowEmpty: false }) };
}

describe("examples/original-config.yaml (written for the original routerd)", () => {
  it("validates unchanged, with the original's spellings read as the original meant them", () => {
    const config = load();
    const spec = (kind: string, name: string) => config.resources.find((r) => r.kind === kind && r.metadata.name === name)!.spec as Record<string, unknown>;
    expect(spec("IPv6DelegatedAddress", "lan-v6").subnetID).toBe("0");
    expect(spec("IPv6DelegatedAddress", "guest-v6").subnetID).toBe("1");
    expect(spec("Interface", "lte")).toMatchObject({ owner: "external", managed: false });
    expect(spec("IPv4StaticAddress", "lan")).toMatchObject({ exclusive: true });
    const candidates = (spec("EgressRoutePolicy", "internet") as unknown as EgressRoutePolicySpec).candidates;
    for (const c of candidates) expect([c.table, c.mark, c.priority]).toEqual([undefined, undefined, undefined]);
  });

  it("plans with the uplinks' leases: LAN DHCP options from status, allocated policy numbers, nothing pending", () => {
    const { desired, plan: p } = planWith(load(), LEASED);
    expect(desired.view.pending).toEqual([]);

    // The numbers routerd chose: distinct, inside its ranges, shown in the plan.
    expect(p.allocations.map((a) => a.candidate).sort()).toEqual(["fiber", "lte"]);
    for (const a of p.allocations) {
      expect(a.allocated.sort()).toEqual(["mark", "priority", "table"]);
      expect(a.mark).toBeGreaterThanOrEqual(0x100);
      expect(a.mark).toBeLessThanOrEqual(0x1ff);
    }
    expect(new Set(p.allocations.map((a) => a.mark)).size).toBe(2);
    expect(new Set(p.allocations.map((a) => a.table)).size).toBe(2);
    const rules = desired.desired.filter((d) => d.kind === "linux.ipv4.fwmarkRule" && d.attributes.candidate !== undefined);
    expect(rules.map((r) => [r.attributes.mark, r.attributes.table]).sort()).toEqual(p.allocations.map((a) => [a.mark, a.table]).sort());
    // The fiber candidate's route uses the gateway its lease gave.
    const fiber = p.allocations.find((a) => a.candidate === "fiber")!;
    const route = desired.desired.find((d) => d.kind === "linux.ipv4.route" && d.attributes.table === fiber.table);
    expect(route?.attributes).toMatchObject({ gateway: "203.0.113.1", device: "wan0" });

    // The LAN's DHCP options: router from the LAN address, DNS servers and domain from the fiber's lease.
    const dnsmasq = String(desired.desired.find((d) => d.kind === "file" && d.attributes.validate === "dnsmasq")!.attributes.content);
    expect(dnsmasq).toMatch(/dhcp-option=tag:[^,]+,option:router,192\.168\.10\.1\n/);
    expect(dnsmasq).toMatch(/option:dns-server,203\.0\.113\.53,203\.0\.113\.54\n/);
    expect(dnsmasq).toMatch(/option:domain-name,isp\.example\n/);
    expect(dnsmasq).toContain("192.168.10.100,192.168.10.199");

    expect(p.summary.create).toBeGreaterThan(0);
    expect(p.summary.delete).toBe(0);
    expect(p.resources.map((r) => r.id)).toEqual(expect.arrayContaining(["EgressRoutePolicy/internet", "DHCPv4Server/lan", "IPv6RouterAdvertisement/lan-ra", "FirewallPolicy/home"]));
  });

  it("without the leases, the resources reading them wait (pending, with the reason) and the rest plans", () => {
    const { desired } = planWith(load(), runtimeFrom({}));
    const pending = desired.view.pending.map((x) => `${x.resource.kind}/${x.resource.metadata.name}`).sort();
    expect(pending).toEqual(["DHCPv4Server/lan", "EgressRoutePolicy/internet", "IPv6RouterAdvertisement/lan-ra"]);
    expect(desired.view.pending.find((x) => x.resource.kind === "DHCPv4Server")!.reason).toMatch(/DHCPv4Client\/wan\.dnsServers is unknown/);
    expect(desired.desired.some((d) => d.kind === "routerd.daemon" && d.name === "dhcpv4-client/wan")).toBe(true);
  });
});
