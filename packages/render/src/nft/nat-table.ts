// ip routerd_nat: PortForward and IngressService DNAT (with hairpin) and NAT44Rule masquerade/SNAT.
import {
  NFT_TABLES,
  candidateDevice,
  hairpinOf,
  liveCandidates,
  natAction,
  type ConfigView,
  type DHCPv4ClientSpec,
  type EgressRoutePolicySpec,
  type NAT44RuleSpec,
  type PortForwardSpec,
  type Resource,
} from "@routerd/api";
import { ingressNatRules, type IngressSelection } from "./ingress.js";
import { addressAlternatives, exclusion, join, setDefs } from "./matches.js";
import { ifnameMatch, renderTable, type Chain } from "./text.js";

function portForwardRules(view: ConfigView, pf: Resource<PortForwardSpec>, prerouting: string[], postrouting: string[]): void {
  const s = pf.spec;
  if (!s.target.address) return; // a target from status not known yet: the resource is pending, never rendered this way
  const wan = view.ifname(s.listen.interface);
  const target = `${s.target.address}${s.target.port !== undefined ? `:${s.target.port}` : ""}`;
  const hairpin = hairpinOf(s);
  const lans = hairpin.interfaces?.map((i) => view.ifname(i));
  const dport = `${s.listen.protocol} dport ${s.listen.port}`;
  prerouting.push(`# PortForward/${pf.metadata.name}`);
  for (const src of addressAlternatives("saddr", s.sourceCIDRs, s.sourceSet)) {
    if (!hairpin.on) {
      prerouting.push(join(s.listen.address ? join(ifnameMatch("iifname", [wan]), `ip daddr ${s.listen.address}`) : ifnameMatch("iifname", [wan]), src, dport, `dnat to ${target}`));
    } else if (lans) {
      // Hairpin only from the listed interfaces: the WAN side as usual, those by the router's address.
      prerouting.push(join(ifnameMatch("iifname", [wan]), s.listen.address ? `ip daddr ${s.listen.address}` : "", src, dport, `dnat to ${target}`));
      prerouting.push(join(ifnameMatch("iifname", lans), s.listen.address ? `ip daddr ${s.listen.address}` : "fib daddr type local", src, dport, `dnat to ${target}`));
    } else {
      prerouting.push(join(s.listen.address ? `ip daddr ${s.listen.address}` : "fib daddr type local", src, dport, `dnat to ${target}`));
    }
  }
  if (hairpin.on) {
    // LAN clients reaching the forward through the router: masquerade so replies come back through it.
    const port = s.target.port ?? s.listen.port;
    postrouting.push(`# PortForward/${pf.metadata.name} hairpin`);
    postrouting.push(join(lans ? ifnameMatch("iifname", lans) : ifnameMatch("iifname", [wan], true), "ct status dnat", `ip daddr ${s.target.address}`, `${s.listen.protocol} dport ${port}`, "masquerade"));
  }
}

/** Where a rule's traffic leaves: its interface, or every live uplink of its EgressRoutePolicy. */
function egressDevices(view: ConfigView, s: NAT44RuleSpec): string[] {
  if (s.egressInterface) return [view.ifname(s.egressInterface)];
  const policy = s.egressPolicyRef ? view.find<EgressRoutePolicySpec>("EgressRoutePolicy", s.egressPolicyRef) : undefined;
  return policy ? [...new Set(liveCandidates(policy.spec).map((c) => candidateDevice(c, view)))] : [];
}

/**
 * nft's translation: masquerade, one address, or a pool spread per source address (jhash). A port range
 * needs a TCP/UDP match, so other protocols get a second rule without it.
 */
function natStatements(s: NAT44RuleSpec): string[] {
  const a = natAction(s);
  const to = (ports: string) => {
    if (a.kind === "masquerade") return `masquerade${ports ? ` to ${ports}` : ""}`;
    if (a.addresses.length === 1) return `snat to ${a.addresses[0]}${ports}`;
    return `snat to jhash ip saddr mod ${a.addresses.length} map { ${a.addresses.map((x, i) => `${i} : ${x}`).join(", ")} }${ports}`;
  };
  if (a.kind === "snat" && a.addresses.some((x) => !x)) return []; // an address from status not known yet
  return a.ports ? [`meta l4proto { tcp, udp } ${to(`:${a.ports}`)}`, to("")] : [to("")];
}

export function renderNatTable(view: ConfigView, ingress: IngressSelection = new Map()): { content: string; digest: string } {
  const forwards = view.all<PortForwardSpec>("PortForward");
  const nats = view.all<NAT44RuleSpec>("NAT44Rule");
  const prerouting: string[] = [];
  const postrouting: string[] = [];

  for (const pf of forwards) portForwardRules(view, pf, prerouting, postrouting);

  const services = ingressNatRules(view, ingress);
  prerouting.push(...services.prerouting);
  postrouting.push(...services.postrouting);

  for (const n of nats) {
    const s = n.spec;
    const actions = natStatements(s);
    const devices = egressDevices(view, s);
    if (!actions.length || !devices.length) continue;
    postrouting.push(`# NAT44Rule/${n.metadata.name}`);
    const excluded = exclusion("daddr", s.excludeDestinationCIDRs, [...(s.excludeDestinationSet ? [s.excludeDestinationSet] : []), ...s.excludeDestinationSetRefs]);
    for (const src of addressAlternatives("saddr", s.sourceRanges, s.sourceSet)) {
      for (const dst of s.destinationCIDRs.length || s.destinationSetRefs.length ? addressAlternatives("daddr", s.destinationCIDRs, s.destinationSetRefs) : [""]) {
        for (const action of actions) postrouting.push(join(ifnameMatch("oifname", devices), src, dst, excluded, action));
      }
    }
  }

  const sets = setDefs(view, [
    ...forwards.map((f) => f.spec.sourceSet),
    ...nats.flatMap((n) => [n.spec.sourceSet, n.spec.excludeDestinationSet, n.spec.destinationSetRefs, n.spec.excludeDestinationSetRefs]),
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
