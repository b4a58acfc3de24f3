// The soak router's config: a DHCPv4 WAN that is also the primary uplink (a TCP health check every second
// decides whether it carries traffic), a static second uplink, DHCPv6-PD on the WAN numbering the LAN, NAT
// on both uplinks, seven static routes, a DNS resolver for the LAN and a BGP session on the second uplink. Generation `g` changes one of the seven routes (route g mod 7
// gets metric 1000 + g), so every rewrite is a config the process has never seen before.
// No SysctlProfile router-linux: its loose rp_filter drops the DHCP server's broadcast replies while no
// route covers the server's address, so the DHCPv4 client (a UDP socket) would never bind (see the notes).
import { renameSync, writeFileSync } from "node:fs";
import { BGP, ISP1, ISP2, TARGET_PORT } from "./lab.mjs";

export const ROUTES = 7;
export const LAN_ADDRESS = "10.10.0.1";
const NET = "net.routerd.net/v1alpha1";
const res = (kind, name, spec, apiVersion = NET) => ({ apiVersion, kind, metadata: { name }, spec });

export function routerConfig(generation) {
  const routes = Array.from({ length: ROUTES }, (_, k) =>
    res("IPv4Route", `route-${k}`, {
      destination: `198.18.${k}.0/24`,
      gateway: ISP2.gateway,
      device: "isp2",
      metric: generation > 0 && k === generation % ROUTES ? 1000 + generation : 100,
    }),
  );
  const resources = [
    res("Interface", "wan", { ifname: "wan1" }),
    res("Interface", "isp2", { ifname: "wan2" }),
    res("Interface", "lan", { ifname: "lan0" }),
    res("DHCPv4Client", "wan", { interface: "wan", hostname: "soak", routeMetric: 50 }),
    res("IPv4StaticAddress", "isp2-address", { interface: "isp2", address: ISP2.router }),
    res("IPv4StaticAddress", "lan-address", { interface: "lan", address: `${LAN_ADDRESS}/24` }),
    res("DHCPv6PrefixDelegation", "wan6", { interface: "wan", prefixLength: 56 }),
    res("IPv6DelegatedAddress", "lan6", { prefixDelegation: "wan6", interface: "lan", announce: false }),
    res("HealthCheck", "wan-tcp", { type: "tcp", target: ISP1.gateway, port: TARGET_PORT, interface: "wan", interval: "1s", timeout: "500ms", healthyThreshold: 2, unhealthyThreshold: 2 }),
    res("IPAddressSet", "lan-clients", { addresses: ["10.10.0.0/24"] }),
    res("EgressRoutePolicy", "internet", {
      sourceSet: "lan-clients",
      failbackDelay: "5s",
      candidates: [
        { name: "wan", interface: "wan", gateway: ISP1.gateway, table: 101, mark: "0x101", priority: 1101, weight: 200, healthCheck: "wan-tcp" },
        { name: "isp2", interface: "isp2", gateway: ISP2.gateway, table: 102, mark: "0x102", priority: 1102, weight: 100 },
      ],
    }),
    res("NAT44Rule", "wan-masq", { egressInterface: "wan", sourceSet: "lan-clients" }),
    res("NAT44Rule", "isp2-masq", { egressInterface: "isp2", sourceSet: "lan-clients" }),
    // routerd-dns-resolver for the LAN: a small cache (the client asks for 1,000 names), a local zone, and
    // the ISP's resolver learned from the DHCPv4 lease.
    res("DNSResolver", "lan", { listen: [{ name: "lan", addresses: [LAN_ADDRESS], sources: ["10.10.0.0/24"] }], cache: { maxEntries: 200 } }),
    res("DNSZone", "lan", { zone: "lan", records: [{ hostname: "router", ipv4: LAN_ADDRESS }, { hostname: "nas", ipv4: "10.10.0.10" }] }),
    res("DNSForwarder", "default", { resolver: "lan", match: ["."], upstreams: ["DNSUpstream/isp"] }),
    res("DNSUpstream", "isp", { protocol: "udp", addressFrom: [{ resource: "DHCPv4Client/wan", field: "dnsServers" }] }),
    // routerd-bgp peering with the isp2 gobgpd; the prefixes it learns go into the main table.
    res("BGPRouter", "edge", { asn: BGP.routerASN, routerID: BGP.routerAddress, timers: { profile: "fast" } }),
    res("BGPPeer", "isp2", { routerRef: "edge", peerASN: BGP.peerASN, peers: [ISP2.gateway] }),
    ...routes,
  ];
  return { apiVersion: "routerd.net/v1alpha1", kind: "Router", metadata: { name: "soak" }, spec: { resources } };
}

/** Writes generation `g` the way a config management tool does: a new file renamed over the old one. */
export function writeConfig(path, generation) {
  writeFileSync(`${path}.tmp`, JSON.stringify(routerConfig(generation), null, 2) + "\n");
  renameSync(`${path}.tmp`, path);
}
