import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  ARTIFACT_KINDS,
  checkLifecycleDeclarations,
  contractArtifactKinds,
  mergeIntents,
  teardownRegistry,
  type ArtifactIntent,
  type LifecycleDeclaration,
} from "@routerd/resource";
import { describe, expect, it } from "vitest";
import { makeConfigView } from "../config-view.js";
import { API_GROUPS } from "../kind.js";
import { loadConfig } from "../load.js";
import { runtimeFrom } from "../runtime.js";
import { makeStatusView } from "../status-view.js";
import { KINDS, kindDefinition } from "./index.js";

const FIXTURE = fileURLToPath(new URL("../testdata/all-kinds.yaml", import.meta.url));

function loadFixture() {
  const result = loadConfig(readFileSync(FIXTURE, "utf8"), FIXTURE);
  expect(result.issues.filter((i) => i.severity === "error")).toEqual([]);
  return result.config!;
}

describe("the kind registry", () => {
  it("has unique kinds in known API groups", () => {
    const names = KINDS.map((k) => k.kind);
    expect(new Set(names).size).toBe(names.length);
    for (const k of KINDS) {
      expect(Object.values(API_GROUPS), k.kind).toContain(k.apiVersion);
      expect(k.description.trim().length, k.kind).toBeGreaterThan(10);
      expect(kindDefinition(k.kind)).toBe(k);
    }
    expect(kindDefinition("Nope")).toBeUndefined();
  });

  it("every kind has exactly one valid lifecycle contract (checked against the real teardown registry)", () => {
    const declarations: LifecycleDeclaration[] = KINDS.map((k) => ({ apiVersion: k.apiVersion, kind: k.kind, class: k.class, contract: k.contract }));
    expect(checkLifecycleDeclarations(declarations, teardownRegistry)).toEqual([]);
  });

  it("every artifact kind a contract names exists in the teardown registry", () => {
    for (const k of KINDS) {
      for (const a of contractArtifactKinds(k.contract)) {
        expect(teardownRegistry.has(a), `${k.kind} → ${a}`).toBe(true);
        expect(ARTIFACT_KINDS, `${k.kind} → ${a}`).toContain(a);
      }
    }
  });

  it("a TeardownLifecycle kind is the only way an address artifact gets removed", () => {
    for (const k of KINDS) {
      for (const a of contractArtifactKinds(k.contract)) {
        if (teardownRegistry.get(a).policy === "ownerTeardown") expect(k.contract.type, `${k.kind} owns ${a}`).toBe("TeardownLifecycle");
      }
    }
  });
});

describe("intents of every kind (fixture testdata/all-kinds.yaml)", () => {
  const config = loadFixture();
  const view = makeConfigView(config);
  const byKind = new Map<string, ArtifactIntent[]>();
  for (const r of config.resources) {
    const intents = kindDefinition(r.kind)!.intents(r, view);
    byKind.set(r.kind, [...(byKind.get(r.kind) ?? []), ...intents]);
  }

  it("the fixture contains every kind of KINDS", () => {
    expect([...new Set(config.resources.map((r) => r.kind))].sort()).toEqual(KINDS.map((k) => k.kind).sort());
  });

  it.each(KINDS.map((k) => [k.kind, k] as const))("%s emits at least one intent", (kind) => {
    expect(byKind.get(kind)?.length ?? 0).toBeGreaterThan(0);
  });

  it.each(KINDS.map((k) => [k.kind, k] as const))("%s: every intent it ensures is covered by its contract, owned by itself", (kind, def) => {
    const covered = contractArtifactKinds(def.contract);
    for (const r of config.resources.filter((x) => x.kind === kind)) {
      for (const i of kindDefinition(kind)!.intents(r, view)) {
        expect(i.owner).toBe(r.owner);
        expect(i.owner).not.toMatch(/generation|\/\d+$/);
        if (i.action === "ensure") expect(covered, `${kind} ensures ${i.kind}`).toContain(i.kind);
        expect(i.applyWith).not.toBe("");
      }
    }
  });

  it("owner keys are apiVersion/kind/name", () => {
    for (const r of config.resources) expect(r.owner).toBe(`${r.apiVersion}/${r.kind}/${r.metadata.name}`);
  });

  it("an unmanaged Interface only observes its link", () => {
    expect(byKind.get("Interface")!.map((i) => [i.name, i.action])).toEqual([
      ["wan0", "ensure"],
      ["lan0", "ensure"],
      ["isp2", "observe"],
    ]);
  });

  it("an IPAddressSet is rendered as a set in each table whose rules refer to it", () => {
    expect(byKind.get("IPAddressSet")!.map((i) => i.name)).toEqual(["inet/routerd_filter/set_clients", "ip/routerd_nat/set_clients", "ip/routerd_policy/set_clients"]);
  });

  it("the intents of the whole fixture merge without conflict (shared tables merge their owners)", () => {
    const all = [...byKind.values()].flat();
    const merged = mergeIntents(all, (kind, a, b) => (kind === "nft.table" || JSON.stringify(a) === JSON.stringify(b) ? a : undefined));
    const nat = merged.find((d) => d.name === "ip/routerd_nat")!;
    expect(nat.owners.map((o) => o.split("/").slice(2).join("/")).sort()).toEqual(["IngressService/api", "NAT44Rule/masquerade", "PortForward/web"]);
    // Only the persistent Sysctl gets a block in the sysctl.d file; the LAN services share one dnsmasq config;
    // the NTPClient owns a block in chrony's sources directory.
    expect(merged.filter((d) => d.kind === "file").map((d) => d.name).sort()).toEqual(["/etc/chrony/sources.d/routerd.sources#ntp-time", "/etc/routerd/dnsmasq.conf#lan-services", "/etc/sysctl.d/90-routerd.conf#net.netfilter.nf_conntrack_max"]);
    expect(merged.find((d) => d.name === "/etc/routerd/dnsmasq.conf#lan-services")!.owners.map((o) => o.split("/").slice(2).join("/")).sort()).toEqual(["DHCPv4Reservation/printer", "DHCPv4Server/lan-dhcp", "DHCPv6Information/lan-info", "DHCPv6Server/lan-dhcpv6", "IPv6RouterAdvertisement/lan-ra"]);
  });

  it("an IPAddressSet nobody refers to emits nothing and is warned about", () => {
    const text =
      readFileSync(FIXTURE, "utf8") +
      ["    - apiVersion: net.routerd.net/v1alpha1", "      kind: IPAddressSet", "      metadata: { name: unused }", "      spec: { addresses: [10.9.9.9] }", ""].join("\n");
    const r = loadConfig(text, "unused.yaml");
    expect(r.config).toBeDefined();
    const unused = r.config!.resources.find((x) => x.metadata.name === "unused")!;
    expect(kindDefinition("IPAddressSet")!.intents(unused, makeConfigView(r.config!))).toEqual([]);
    expect(r.issues).toEqual([expect.objectContaining({ severity: "warning", resource: "IPAddressSet/unused", message: expect.stringMatching(/no rule refers/) })]);
  });
});

describe("provides tables and published status", () => {
  const TYPES = ["string", "stringList", "int", "bool", "object", "objectList", "timestamp"];

  it.each(KINDS.map((k) => [k.kind, k] as const))("%s has a provides table of the original API's types", (_kind, def) => {
    expect(def.provides, "a kind without a provides table cannot be read by *From or when.state").toBeTypeOf("object");
    expect(def.provides).not.toHaveProperty("phase"); // every kind provides phase; the table lists the rest
    for (const [field, type] of Object.entries(def.provides)) expect(TYPES, `${field}`).toContain(type);
  });

  // Fields that come from routerd serve (its uplink choice, health details, cluster lease) or that routerd
  // has no value for: everything else must be published from the config and the runtime facts.
  const NOT_FROM_STATUS: Record<string, string[]> = {
    EgressRoutePolicy: ["selectedSource", "selectedTargets", "role", "advisory", "lastTransitionAt", "updatedAt"],
    HealthCheck: ["role", "consecutiveFailed", "lastCheckedAt"],
    IPAddressSet: ["updatedAt"],
    IPv4Route: ["preferredSource"],
    RouterdCluster: ["leader", "leaseExpiresAt"],
    DHCPv6Server: ["sntpServers"],
    IngressService: ["activeBackend", "activeBackends", "healthyBackends", "observedAt"],
    DNSResolver: ["updatedAt"],
    // Counted by the running pipeline in routerd serve.
    ObservabilityPipeline: ["sinks"],
    DNSZone: ["updatedAt"],
    TunnelInterface: ["observedAddress", "observedPeerAddress", "underlayMTU"],
    // SAM node sets and the host firewall summary are not implemented (validation refuses peersFrom/selfNodeRef).
    WireGuardInterface: ["selfNodeRef", "hostFirewall", "peersFrom", "pendingSources"],
    NTPClient: ["updatedAt"],
    // From `tailscale status --json`, read by routerd serve (serve facts, not in this fixture's runtime).
    TailscaleNode: ["tailnetName", "peerCount"],
  };
  const fixture = loadFixture();
  const lease = { address: "203.0.113.9", prefixLength: 24, routers: ["203.0.113.1"], dnsServers: ["203.0.113.53"], domain: "isp.example", classlessRoutes: [], expiresAt: "2030-01-01T00:00:00.000Z", ntpServers: ["203.0.113.123"], leaseTime: 3600, renewAt: "2029-12-31T23:30:00.000Z", rebindAt: "2029-12-31T23:52:30.000Z" };
  const prefix = { prefix: "2001:db8:1000::", prefixLength: 56, preferredLifetime: 3600, validLifetime: 7200, expiresAt: "2030-01-01T00:00:00.000Z", dnsServers: ["2001:db8::53"], domainSearch: ["isp.example"], sntpServers: ["2001:db8::123"], aftrName: "aftr.isp.example" };
  const link = (ifname: string, v4: string) => ({ ifname, adminUp: true, operstate: "UP", mac: "02:00:00:00:00:01", ipv4: [{ address: v4, prefixLength: 24 }], ipv6: [{ address: "2001:db8:1::1", prefixLength: 64, scope: "global" }] });
  const runtime = runtimeFrom({
    dhcpv4: new Map([["isp2-dhcp", { state: "present", value: lease, phase: "Bound" }]]),
    prefixes: new Map([["isp-pd", { state: "present", value: prefix, phase: "Bound" }]]),
    pppoe: new Map([["flets", { state: "present", value: { device: "ppp0", interface: "wan0", currentAddress: "10.64.0.100", peerAddress: "10.64.0.1", dnsServers: ["10.64.0.53"], connectedAt: "2030-01-01T00:00:00.000Z" }, phase: "Up" }]]),
    vrrpRoles: new Map([["lan-gateway", { state: "present", value: "MASTER" }]]),
    // What routerd-bgp@edge answers (GetStatus): its details and its BGPPeer and BFD resources.
    bgp: new Map([
      [
        "edge",
        {
          state: "present",
          value: {
            details: { peers: [{ address: "192.0.2.2", state: "Established" }], prefixes: 12, establishedPeers: 1, acceptedPrefixes: 12, observedAt: "2030-01-01T00:00:00.000Z" },
            resources: {
              upstream: { phase: "Established", details: { address: "192.0.2.2", state: "Established", acceptedPrefixes: 12, observedAt: "2030-01-01T00:00:00.000Z" } },
              "BFD/upstream-bfd": { phase: "Up", details: { peer: "192.0.2.2", state: "up" } },
            },
          },
        },
      ],
    ]),
    links: new Map([["wan0", link("wan0", "198.51.100.2")], ["lan0", link("lan0", "192.168.10.1")], ["isp2", link("isp2", "203.0.113.9")]]),
    wireguard: new Map([
      [
        "wg0",
        {
          ifname: "wg0",
          backend: "wireguard-go" as const,
          publicKey: "L8lFstTe/ajEvrkMwvPxZDVkuMxYzy7xGQBU8eXkqTY=",
          listenPort: 51820,
          peers: [{ publicKey: "R+kpv0E7+9ZfEtF0WNgYBwK3xWemo6L7sQ+YHZWIuGY=", endpoint: "198.51.100.7:51820", allowedIPs: ["10.99.1.0/24", "fd99::/64"], latestHandshake: "2030-01-01T00:00:00.000Z", transferRxBytes: 1024, transferTxBytes: 2048, persistentKeepalive: 25 }],
        },
      ],
    ]),
  });
  const status = makeStatusView({ config: fixture, runtime });

  it.each(KINDS.map((k) => [k.kind, k] as const))("%s publishes exactly what its provides table lists", (kind, def) => {
    for (const r of fixture.resources.filter((x) => x.kind === kind)) {
      const published = status.published(`${kind}/${r.metadata.name}`);
      expect(published.unknown).toBeUndefined();
      const set = Object.entries(published.fields).filter(([, v]) => v !== undefined).map(([k]) => k);
      const expected = Object.keys(def.provides).filter((f) => !NOT_FROM_STATUS[kind]?.includes(f));
      for (const f of set) expect(Object.keys(def.provides), `${kind} publishes ${f}`).toContain(f);
      // Optional spec values (an IPv4Route's gateway, a PortForward's listen address) may be unset.
      const optional = new Set(["gateway", "device", "domain", "listenAddress", "snatAddress", "sourceAddress", "sourceInterface", "selectedGateway", "aftrName", "hostname", "virtualRouterID", "priority"]);
      for (const f of expected.filter((x) => !optional.has(x))) expect(set, `${kind}/${r.metadata.name} does not publish ${f}`).toContain(f);
    }
  });
});
