// ip routerd_nat: PortForward and IngressService DNAT (with hairpin) and NAT44Rule masquerade/SNAT.
import { NFT_TABLES, type ConfigView, type DHCPv4ClientSpec, type NAT44RuleSpec, type PortForwardSpec } from "@routerd/api";
import { ingressNatRules, type IngressSelection } from "./ingress.js";
import { addressAlternatives, exclusion, join, setDefs } from "./matches.js";
import { ifnameMatch, renderTable, type Chain } from "./text.js";

export function renderNatTable(view: ConfigView, ingress: IngressSelection = new Map()): { content: string; digest: string } {
  const forwards = view.all<PortForwardSpec>("PortForward");
  const nats = view.all<NAT44RuleSpec>("NAT44Rule");
  const prerouting: string[] = [];
  const postrouting: string[] = [];

  for (const pf of forwards) {
    const s = pf.spec;
    const wan = view.ifname(s.listen.interface);
    const target = `${s.target.address}${s.target.port !== undefined ? `:${s.target.port}` : ""}`;
    const where = s.listen.address
      ? `ip daddr ${s.listen.address}`
      : s.hairpin.enabled
        ? "fib daddr type local"
        : ifnameMatch("iifname", [wan]);
    prerouting.push(`# PortForward/${pf.metadata.name}`);
    for (const src of addressAlternatives("saddr", s.sourceCIDRs, s.sourceSet)) {
      prerouting.push(join(s.listen.address && !s.hairpin.enabled ? ifnameMatch("iifname", [wan]) : "", where, src, `${s.listen.protocol} dport ${s.listen.port}`, `dnat to ${target}`));
    }
    if (s.hairpin.enabled) {
      // LAN clients reaching the forward through the router: masquerade so replies come back through it.
      const port = s.target.port ?? s.listen.port;
      postrouting.push(`# PortForward/${pf.metadata.name} hairpin`);
      postrouting.push(join(ifnameMatch("iifname", [wan], true), "ct status dnat", `ip daddr ${s.target.address}`, `${s.listen.protocol} dport ${port}`, "masquerade"));
    }
  }

  const services = ingressNatRules(view, ingress);
  prerouting.push(...services.prerouting);
  postrouting.push(...services.postrouting);

  for (const n of nats) {
    const s = n.spec;
    const action = s.type === "snat" ? `snat to ${s.snatAddress}` : "masquerade";
    postrouting.push(`# NAT44Rule/${n.metadata.name}`);
    for (const src of addressAlternatives("saddr", s.sourceRanges, s.sourceSet)) {
      postrouting.push(join(ifnameMatch("oifname", [view.ifname(s.egressInterface)]), src, exclusion("daddr", s.excludeDestinationCIDRs, s.excludeDestinationSet), action));
    }
  }

  const sets = setDefs(view, [
    ...forwards.map((f) => f.spec.sourceSet),
    ...nats.flatMap((n) => [n.spec.sourceSet, n.spec.excludeDestinationSet]),
  ]);
  const chains: Chain[] = [
    { name: "prerouting", hook: "type nat hook prerouting priority dstnat; policy accept;", rules: prerouting },
    { name: "postrouting", hook: "type nat hook postrouting priority srcnat; policy accept;", rules: postrouting },
    ...dhcpClientNotrack(view),
  ];
  return renderTable(NFT_TABLES.nat.family, NFT_TABLES.nat.table, sets, chains);
}

/**
 * A DHCPv4 client's requests before it has an address leave with a source the kernel picks from another
 * link (the LAN's address, once it has one), so two uplinks' DISCOVERs share one conntrack tuple and a
 * masquerade for LAN sources claims them: conntrack then binds the tuple to the first uplink and drops
 * the second one's packet (EPERM). Conntrack has nothing to do for these exchanges (the replies are
 * broadcasts it cannot relate anyway): they bypass it, and with it NAT.
 */
function dhcpClientNotrack(view: ConfigView): Chain[] {
  const clients = view.all<DHCPv4ClientSpec>("DHCPv4Client").map((c) => view.ifname(c.spec.interface));
  if (!clients.length) return [];
  return [{ name: "dhcp_client_notrack", hook: "type filter hook output priority raw; policy accept;", rules: ["# DHCPv4Client requests", join(ifnameMatch("oifname", clients), "udp sport 68 udp dport 67", "notrack")] }];
}
