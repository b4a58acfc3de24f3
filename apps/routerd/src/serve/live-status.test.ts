// What routerctl status shows beyond the phase: leases, prefixes, probe states and the active uplink.
import { loadConfig, makeConfigView, runtimeFrom } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { liveMessages } from "./live-status.js";

const NET = "net.routerd.net/v1alpha1";
const r = (kind: string, name: string, spec: Record<string, unknown>) => ({ apiVersion: NET, kind, metadata: { name }, spec });
const loaded = loadConfig(
  JSON.stringify({
    apiVersion: "routerd.net/v1alpha1",
    kind: "Router",
    metadata: { name: "t" },
    spec: {
      resources: [
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
      ],
    },
  }),
  "t.yaml",
);
if (!loaded.config) throw new Error(JSON.stringify(loaded.issues));
const config = loaded.config;

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
