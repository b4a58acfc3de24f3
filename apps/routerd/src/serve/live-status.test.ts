// What routerctl status shows beyond the phase: leases, prefixes, probe states and the active uplink.
import { loadConfig, makeConfigView, runtimeFrom } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { byteSize, liveMessages } from "./live-status.js";

const NET = "net.routerd.net/v1alpha1";
const r = (kind: string, name: string, spec: Record<string, unknown>) => ({ apiVersion: NET, kind, metadata: { name }, spec });
/** A Router config of `resources`, loaded and checked (a fixture that does not validate fails the file at once). */
function routerConfig(file: string, resources: unknown[]) {
  const loaded = loadConfig(JSON.stringify({ apiVersion: "routerd.net/v1alpha1", kind: "Router", metadata: { name: "t" }, spec: { resources } }), file);
  if (!loaded.config) throw new Error(JSON.stringify(loaded.issues));
  return loaded.config;
}
const config = routerConfig("t.yaml", [
  r("Interface", "wan1", {}),
  r("Interface", "wan2", {}),
  r("DHCPv4Client", "isp1", { interface: "wan1" }),
  r("DHCPv4Client", "isp2", { interface: "wan2", routeMetric: 200 }),
  r("DHCPv6PrefixDelegation", "pd", { interface: "wan1" }),
  r("HealthCheck", "up1", { type: "icmp", target: "192.0.2.1" }),
  r("HealthCheck", "up2", { type: "icmp", target: "192.0.2.2" }),
  {
    apiVersion: "firewall.routerd.net/v1alpha1",
    kind: "IngressService",
    metadata: { name: "web" },
    spec: {
      listen: { interface: "wan1", protocol: "tcp", port: 80 },
      backends: [
        { name: "web1", address: "192.168.10.21", port: 8000 },
        { name: "web2", address: "192.168.10.22", port: 8000 },
        { name: "web3", address: "192.168.10.23", port: 8000 },
      ],
    },
  },
  r("EgressRoutePolicy", "internet", {
    sourceCIDRs: ["192.168.10.0/24"],
    candidates: [
      { name: "isp1", interface: "wan1", table: 101, mark: "0x101", priority: 1101, weight: 200, healthCheck: "up1" },
      { name: "isp2", interface: "wan2", table: 102, mark: "0x102", priority: 1102, healthCheck: "up2" },
    ],
  }),
]);

describe("liveMessages", () => {
  it("says which lease, prefix, probe state and uplink each resource has right now", () => {
    const runtime = runtimeFrom({
      dhcpv4: new Map([
        ["isp1", { state: "present", value: { address: "198.51.100.7", prefixLength: 24, routers: ["198.51.100.1"], dnsServers: [], classlessRoutes: [], expiresAt: "2030-01-01T00:00:00.000Z" } }],
        ["isp2", { state: "absent", reason: "phase Selecting" }],
      ]),
      prefixes: new Map([["pd", { state: "present", value: { prefix: "2001:db8:1000::", prefixLength: 56, preferredLifetime: 600, validLifetime: 900, expiresAt: "2030-01-01T00:15:00.000Z", dnsServers: [], domainSearch: [] } }]]),
    });
    const m = liveMessages({
      view: makeConfigView(config, runtime),
      runtime,
      health: new Map([
        ["up1", "Unhealthy"],
        ["ingress.web.web2", "Unhealthy"],
      ]),
      decisions: new Map([["internet", { active: "isp2", pending: { candidate: "isp1", since: 0 }, changedAt: 0 }]]),
      ingress: new Map([["web", ["web1", "web3"]]]),
    });
    expect(Object.fromEntries(m)).toEqual({
      "DHCPv4Client/isp1": "198.51.100.7/24 via 198.51.100.1, until 2030-01-01T00:00:00.000Z",
      "DHCPv4Client/isp2": "no lease (phase Selecting)",
      "DHCPv6PrefixDelegation/pd": "2001:db8:1000::/56, until 2030-01-01T00:15:00.000Z",
      "HealthCheck/up1": "Unhealthy",
      "HealthCheck/up2": "Unknown (the healthcheck daemon is not answering yet)",
      "EgressRoutePolicy/internet": "active isp2 (standby isp1); back to isp1 once it stays usable for failbackDelay",
      "IngressService/web": "new connections go to web1, web3 (out: web2 Unhealthy)",
    });
  });

  it("says when a client does not answer, and nothing about a policy serve has not decided yet", () => {
    const runtime = runtimeFrom({});
    const m = liveMessages({ view: makeConfigView(config, runtime), runtime, health: new Map(), decisions: new Map(), ingress: new Map([["web", []]]) });
    expect(m.get("DHCPv4Client/isp1")).toBe("lease: the client is not answering");
    expect(m.get("IngressService/web")).toBe("no healthy backend (out: web1 Unknown, web2 Unknown, web3 Unknown)");
    expect(m.has("EgressRoutePolicy/internet")).toBe(false);
  });
});

describe("liveMessages for WireGuard peers and NTP clients", () => {
  const key = (c: string) => `${c.repeat(42)}${"A"}=`;
  const SYSTEM = "system.routerd.net/v1alpha1";
  const wgConfig = routerConfig("wg.yaml", [
    r("Interface", "wan1", {}),
    r("DHCPv4Client", "isp1", { interface: "wan1" }),
    r("WireGuardInterface", "wg0", { listenPort: 51820, privateKeyFile: "/etc/routerd/wg0.key" }),
    r("WireGuardPeer", "laptop", { interface: "wg0", publicKey: key("a"), allowedIPs: ["10.99.0.2/32"] }),
    r("WireGuardPeer", "office", { interface: "wg0", publicKey: key("b"), allowedIPs: ["10.99.1.0/24"], endpoint: "203.0.113.9:51820" }),
    r("WireGuardPeer", "spare", { interface: "wg0", publicKey: key("c"), allowedIPs: ["10.99.2.0/24"] }),
    { apiVersion: SYSTEM, kind: "NTPClient", metadata: { name: "fixed" }, spec: { provider: "chrony", servers: ["192.0.2.123"] } },
    { apiVersion: SYSTEM, kind: "NTPClient", metadata: { name: "leased" }, spec: { provider: "chrony", source: "dhcp", serverFrom: [{ resource: "DHCPv4Client/isp1", field: "ntpServers" }] } },
  ]);
  const device = (peers: { publicKey: string; endpoint?: string; latestHandshake?: string; transferRxBytes: number; transferTxBytes: number }[]) =>
    new Map([["wg0", { ifname: "wg0", backend: "wireguard-go" as const, listenPort: 51820, peers: peers.map((p) => ({ allowedIPs: [], ...p })) }]]);

  it("says when each peer last shook hands (an absolute time: the line is read after it is made), from where, and what it carried", () => {
    const runtime = runtimeFrom({
      wireguard: device([
        { publicKey: key("a"), endpoint: "198.51.100.20:40001", latestHandshake: "2030-01-01T00:09:18.000Z", transferRxBytes: 1536, transferTxBytes: 3 * 1024 * 1024 },
        { publicKey: key("b"), transferRxBytes: 0, transferTxBytes: 148 },
      ]),
    });
    const m = liveMessages({ view: makeConfigView(wgConfig, runtime), runtime, health: new Map(), decisions: new Map(), ingress: new Map() });
    expect(m.get("WireGuardPeer/laptop")).toBe("latest handshake 2030-01-01T00:09:18.000Z from 198.51.100.20:40001; rx 1.5 KiB, tx 3.0 MiB");
    expect(m.get("WireGuardPeer/office")).toBe("no handshake yet (dialling 203.0.113.9:51820); rx 0 B, tx 148 B");
    expect(m.get("WireGuardPeer/spare")).toBe("not on wg0 yet");
  });

  it("says why a peer has no facts when the device is missing or was not read", () => {
    const absent = runtimeFrom({ wireguard: new Map() });
    const m = liveMessages({ view: makeConfigView(wgConfig, absent), runtime: absent, health: new Map(), decisions: new Map(), ingress: new Map() });
    expect(m.get("WireGuardPeer/laptop")).toBe("no device wg0 (no such WireGuard device on the host)");
    const unread = runtimeFrom({});
    const u = liveMessages({ view: makeConfigView(wgConfig, unread), runtime: unread, health: new Map(), decisions: new Map(), ingress: new Map() });
    expect(u.get("WireGuardPeer/laptop")).toBe("WireGuard state not read (WireGuard devices were not read)");
  });

  it("names the NTP servers in use and where they come from, with a lease's servers once resolved", () => {
    const runtime = runtimeFrom({});
    const view = makeConfigView(wgConfig, runtime);
    const before = liveMessages({ view, runtime, health: new Map(), decisions: new Map(), ingress: new Map() });
    expect(before.get("NTPClient/fixed")).toBe("chrony → 192.0.2.123 (source static)");
    expect(before.get("NTPClient/leased")).toBe("no server known yet (source dhcp: waiting for the lease's NTP servers)");
    const resolved = makeConfigView(
      { ...wgConfig, resources: wgConfig.resources.map((x) => (x.metadata.name === "leased" ? { ...x, spec: { ...(x.spec as object), servers: ["198.51.100.1"] } } : x)) },
      runtime,
    );
    const after = liveMessages({ view, resolved, runtime, health: new Map(), decisions: new Map(), ingress: new Map() });
    expect(after.get("NTPClient/leased")).toBe("chrony → 198.51.100.1 (source dhcp)");
  });

  it("writes transfer sizes the way an operator reads them", () => {
    expect([byteSize(0), byteSize(1023), byteSize(1024), byteSize(15 * 1024 * 1024), byteSize(5 * 1024 ** 4)]).toEqual(["0 B", "1023 B", "1.0 KiB", "15 MiB", "5.0 TiB"]);
  });
});

describe("liveMessages for BGP", () => {
  const bgpConfig = routerConfig("bgp.yaml", [
    r("BGPRouter", "edge", { asn: 64512, routerID: "192.0.2.1" }),
    r("BGPPeer", "isps", { routerRef: "edge", peerASN: 64500, peers: ["198.51.100.1", "203.0.113.1"] }),
  ]);
  const details = {
    prefixes: 3,
    peers: [
      { address: "198.51.100.1", peer: "isps", state: "Established", since: "2030-01-01T00:07:55.000Z", uptimeSeconds: 125, receivedPrefixes: 4, acceptedPrefixes: 3, advertisedPrefixes: 1 },
      { address: "203.0.113.1", peer: "isps", state: "Active", uptimeSeconds: 0, receivedPrefixes: 0, acceptedPrefixes: 0, advertisedPrefixes: 0 },
    ],
  };

  it("gives each neighbour's state, time up and prefix counts, and the router's totals", () => {
    const runtime = runtimeFrom({ bgp: new Map([["edge", { state: "present", value: { details, resources: {} } }]]) });
    const m = liveMessages({ view: makeConfigView(bgpConfig, runtime), runtime, health: new Map(), decisions: new Map(), ingress: new Map() });
    expect(m.get("BGPPeer/isps")).toBe("198.51.100.1 Established since 2030-01-01T00:07:55.000Z, prefixes 4 received / 3 accepted / 1 advertised; 203.0.113.1 Active, prefixes 0 received / 0 accepted / 0 advertised");
    expect(m.get("BGPRouter/edge")).toBe("1 of 2 neighbours established, 3 prefixes");
  });

  it("says when routerd-bgp has not answered", () => {
    const runtime = runtimeFrom({});
    const m = liveMessages({ view: makeConfigView(bgpConfig, runtime), runtime, health: new Map(), decisions: new Map(), ingress: new Map() });
    expect(m.get("BGPPeer/isps")).toBe("routerd-bgp@edge is not answering");
  });
});
