// IngressService rules from status-sourced addresses: the listen address follows the WAN lease and a backend's
// address follows another resource, through the one effective view; a missing source keeps the service pending.
import { effectiveView, loadConfig, makeConfigView, makeStatusView, runtimeFrom, type Dhcpv4Lease, type RouterConfig } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { ingressFilterRules, ingressNatRules } from "./ingress.js";

const NET = "net.routerd.net/v1alpha1";
const CONFIG = JSON.stringify({
  apiVersion: "routerd.net/v1alpha1",
  kind: "Router",
  metadata: { name: "t" },
  spec: {
    resources: [
      { apiVersion: NET, kind: "Interface", metadata: { name: "wan" }, spec: { ifname: "wan0" } },
      { apiVersion: NET, kind: "Interface", metadata: { name: "lan" }, spec: { ifname: "lan0" } },
      { apiVersion: NET, kind: "DHCPv4Client", metadata: { name: "wan" }, spec: { interface: "wan" } },
      { apiVersion: NET, kind: "IPv4StaticAddress", metadata: { name: "nas" }, spec: { interface: "lan", address: "192.168.1.20/24" } },
      {
        apiVersion: "firewall.routerd.net/v1alpha1",
        kind: "IngressService",
        metadata: { name: "files" },
        spec: {
          listen: { interface: "wan", addressFrom: { resource: "DHCPv4Client/wan", field: "currentAddress" }, protocol: "tcp", port: 443 },
          backends: [{ name: "nas", addressFrom: { resource: "IPv4StaticAddress/nas", field: "address" }, port: 8443 }, { name: "spare", address: "192.168.1.21", port: 8443 }],
          policy: { onNoHealthyBackends: "reject" },
        },
      },
    ],
  },
});

function rules(config: RouterConfig, lease: Dhcpv4Lease | undefined) {
  const runtime = runtimeFrom({ dhcpv4: new Map([["wan", lease ? { state: "present" as const, value: lease, phase: "Bound" } : { state: "absent" as const }]]) });
  const status = makeStatusView({ config, runtime });
  const eff = effectiveView(config, status, status);
  const view = makeConfigView({ ...config, resources: eff.active }, runtime);
  return { pending: eff.pending.map((p) => p.resource.metadata.name), nat: ingressNatRules(view, new Map()).prerouting, filter: ingressFilterRules(view, new Map()) };
}

describe("IngressService with addressFrom", () => {
  const loaded = loadConfig(CONFIG, "t.yaml");
  const lease: Dhcpv4Lease = { address: "198.51.100.7", prefixLength: 24, routers: ["198.51.100.1"], dnsServers: [], classlessRoutes: [], expiresAt: "2030-01-01T00:00:00.000Z" };

  it("validates", () => expect(loaded.issues.filter((i) => i.severity === "error")).toEqual([]));

  it("renders the resolved listen and backend addresses", () => {
    const r = rules(loaded.config!, lease);
    expect(r.pending).toEqual([]);
    expect(r.nat).toEqual(["# IngressService/files: failover over nas", 'iifname "wan0" ip daddr 198.51.100.7 tcp dport 443 dnat to 192.168.1.20:8443']);
  });

  it("keeps the service pending while the WAN has no lease (nothing rendered, nothing rejected)", () => {
    const r = rules(loaded.config!, undefined);
    expect(r.pending).toEqual(["files"]);
    expect(r.nat).toEqual([]);
    expect(r.filter).toEqual([]);
  });
});
