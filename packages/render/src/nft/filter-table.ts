// inet routerd_filter: zones, rules between zones and to the router itself, stateful basics, and the
// holes routerd's own services need.
import { NFT_TABLES, type ConfigView, type FirewallPolicySpec, type FirewallRuleSpec, type FirewallZoneSpec, type PortForwardSpec } from "@routerd/api";
import { ingressFilterRules, type IngressSelection } from "./ingress.js";
import { addressAlternatives, join, portMatch, setDefs } from "./matches.js";
import { ifnameMatch, quote, renderTable, type Chain } from "./text.js";

/** A port routerd's own services need open on the router (a DHCP server on the LAN, say). */
export interface ServiceHole {
  owner: string;
  ifnames?: readonly string[];
  /** Only to these local addresses (a service listening on an address no interface is known for). */
  daddrs?: readonly string[];
  protocol: "tcp" | "udp";
  port: number;
}

/** One rule per address family when the hole is limited to destination addresses. */
function holeRules(h: ServiceHole): string[] {
  const iif = h.ifnames?.length ? ifnameMatch("iifname", h.ifnames) : "";
  const tail = `${h.protocol} dport ${h.port}`;
  if (!h.daddrs?.length) return [join(iif, tail, "accept")];
  const v4 = h.daddrs.filter((a) => !a.includes(":"));
  const v6 = h.daddrs.filter((a) => a.includes(":"));
  const set = (xs: readonly string[]) => (xs.length === 1 ? xs[0]! : `{ ${xs.join(", ")} }`);
  return [...(v4.length ? [join(iif, `ip daddr ${set(v4)}`, tail, "accept")] : []), ...(v6.length ? [join(iif, `ip6 daddr ${set(v6)}`, tail, "accept")] : [])];
}

const VERDICT_RULE = { accept: "accept", drop: "drop", reject: "reject" } as const;
const chainId = (s: string) => s.replace(/-/g, "_");

export function renderFilterTable(view: ConfigView, holes: readonly ServiceHole[] = [], ingress: IngressSelection = new Map()): { content: string; digest: string } {
  const policy = view.all<FirewallPolicySpec>("FirewallPolicy")[0]?.spec ?? { defaultInput: "accept", defaultForward: "accept", logDeny: false };
  const zones = view.all<FirewallZoneSpec>("FirewallZone");
  const rules = view.all<FirewallRuleSpec>("FirewallRule");
  const zoneIfnames = new Map(zones.map((z) => [z.metadata.name, z.spec.interfaces.map((i) => view.ifname(i))]));

  const ruleLine = (r: (typeof rules)[number]): string[] =>
    addressAlternatives("saddr", r.spec.sourceCIDRs, r.spec.sourceSet).map((src) =>
      join(src, portMatch(r.spec.protocol, r.spec.port), r.spec.log ? `log prefix ${quote(`routerd ${r.metadata.name}: `)}` : "", VERDICT_RULE[r.spec.action]),
    );

  const zoneChains: Chain[] = [];
  const inputDispatch: string[] = [];
  const forwardDispatch: string[] = [];
  for (const z of zones) {
    const mine = rules.filter((r) => r.spec.fromZone === z.metadata.name && r.spec.toZone === "self");
    if (!mine.length) continue;
    const name = `input_${chainId(z.metadata.name)}`;
    zoneChains.push({ name, rules: mine.flatMap((r) => [`# FirewallRule/${r.metadata.name}`, ...ruleLine(r)]) });
    inputDispatch.push(`${ifnameMatch("iifname", zoneIfnames.get(z.metadata.name)!)} jump ${name}`);
  }
  for (const from of zones) {
    for (const to of zones) {
      const mine = rules.filter((r) => r.spec.fromZone === from.metadata.name && r.spec.toZone === to.metadata.name);
      if (!mine.length) continue;
      const name = `forward_${chainId(from.metadata.name)}_to_${chainId(to.metadata.name)}`;
      zoneChains.push({ name, rules: mine.flatMap((r) => [`# FirewallRule/${r.metadata.name}`, ...ruleLine(r)]) });
      forwardDispatch.push(`${ifnameMatch("iifname", zoneIfnames.get(from.metadata.name)!)} ${ifnameMatch("oifname", zoneIfnames.get(to.metadata.name)!)} jump ${name}`);
    }
  }

  const tail = (verdict: "accept" | "drop" | "reject", what: string) => {
    const out: string[] = [];
    if (policy.logDeny && verdict !== "accept") out.push(`limit rate 10/second burst 20 packets log prefix ${quote(`routerd deny ${what}: `)}`);
    if (verdict === "reject") out.push("reject with icmpx type admin-prohibited");
    return out;
  };
  const base = (verdict: "accept" | "drop" | "reject") => (verdict === "accept" ? "accept" : "drop");

  // Services without a healthy backend are answered before any zone rule could accept their port.
  const unserved = ingressFilterRules(view, ingress);
  const input: string[] = [
    "ct state established,related accept",
    "ct state invalid drop",
    ...unserved,
    'iifname "lo" accept',
    // IPv6 breaks without neighbour discovery; these never depend on zones.
    "meta l4proto ipv6-icmp icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit, nd-router-advert } accept",
    ...holes.flatMap((h) => [`# ${h.owner}`, ...holeRules(h)]),
    ...inputDispatch,
    ...tail(policy.defaultInput, "input"),
  ];
  const forwarded = view.all<PortForwardSpec>("PortForward").length + view.all("IngressService").length > 0;
  const forward: string[] = [
    "ct state established,related accept",
    "ct state invalid drop",
    ...unserved,
    ...(forwarded ? ["# PortForward, IngressService: connections DNATed by routerd_nat", "ct status dnat accept"] : []),
    ...forwardDispatch,
    ...tail(policy.defaultForward, "forward"),
  ];
  const sets = setDefs(view, rules.map((r) => r.spec.sourceSet));
  return renderTable(NFT_TABLES.filter.family, NFT_TABLES.filter.table, sets, [
    { name: "input", hook: `type filter hook input priority filter; policy ${base(policy.defaultInput)};`, rules: input },
    { name: "forward", hook: `type filter hook forward priority filter; policy ${base(policy.defaultForward)};`, rules: forward },
    ...zoneChains,
  ]);
}
