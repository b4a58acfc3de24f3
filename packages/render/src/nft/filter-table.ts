// inet routerd_filter: zones, rules between zones and to the router itself, stateful basics, the holes
// routerd's own services need, and (without explicit defaults) the original's role matrix.
import { NFT_TABLES, usesRoleMatrix, type ConfigView, type FirewallPolicySpec, type FirewallRuleSpec, type FirewallZoneSpec, type PortForwardSpec, type Resource } from "@routerd/api";
import { ingressFilterRules, type IngressSelection } from "./ingress.js";
import { addressAlternatives, exclusion, join, portMatch, setDefs } from "./matches.js";
import { anonSet, ifnameMatch, quote, renderTable, type Chain, type NftSetDef } from "./text.js";
import { roleMatrixRules } from "./role-matrix.js";

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
/** The dynamic set counting a rule's connections per source (connLimit). */
const connSet = (rule: string) => `conn_${chainId(rule)}`;

/** What a rule matches besides zones: protocol, ports, ICMP types, addresses. */
function protocolMatch(s: FirewallRuleSpec): string {
  const proto = s.protocol === "ipv6-icmp" ? "icmpv6" : s.protocol;
  if (proto === "tcp" || proto === "udp") {
    const dports = s.destinationPorts.length ? anonSet(s.destinationPorts.map(String)) : s.port !== undefined ? String(s.port) : undefined;
    const sports = s.sourcePorts.length ? anonSet(s.sourcePorts.map(String)) : undefined;
    if (!dports && !sports) return `meta l4proto ${proto}`;
    return join(sports ? `${proto} sport ${sports}` : "", dports ? `${proto} dport ${dports}` : "");
  }
  if (proto === "icmp") return s.icmpType ? `icmp type ${s.icmpType}` : "meta l4proto icmp";
  if (proto === "icmpv6") return s.icmpv6Type ? `icmpv6 type ${s.icmpv6Type}` : "meta l4proto ipv6-icmp";
  if (proto === "ipip") return "meta l4proto ipip";
  return portMatch(proto, s.port);
}

function rateText(r: NonNullable<FirewallRuleSpec["rateLimit"]>, over: boolean): string {
  const rate = r.packetsPerSecond ?? r.rate!;
  const unit = { packet: "", byte: " bytes", kilobyte: " kbytes", megabyte: " mbytes" }[r.unit];
  const burst = r.burst !== undefined ? ` burst ${r.burst} packets` : "";
  return `limit rate ${over ? "over " : ""}${rate}${unit}/${r.per}${burst}`;
}

/** The rule's lines: a connection limit first (its own verdict), then the rule with its rate limit. */
function ruleLines(r: Resource<FirewallRuleSpec>): string[] {
  const s = r.spec;
  const log = (what: string) => `log prefix ${quote(`routerd ${r.metadata.name}${what}: `)}`;
  const dsts = s.destinationCIDRs.length || s.destinationSetRefs.length ? addressAlternatives("daddr", s.destinationCIDRs, s.destinationSetRefs) : [""];
  const excluded = exclusion("daddr", [], s.excludeDestinationSetRefs);
  const out: string[] = [];
  for (const src of addressAlternatives("saddr", s.sourceCIDRs, s.sourceSet)) {
    for (const dst of dsts) {
      const match = join(src, dst, excluded, protocolMatch(s));
      const verdict = VERDICT_RULE[s.action];
      if (s.connLimit) {
        const limit = `ct state new add @${connSet(r.metadata.name)} { ip saddr ct count over ${s.connLimit.maxPerSource} }`;
        // Accept rules turn away what goes beyond the limit; drop/reject rules act only beyond it.
        out.push(join(match, limit, s.connLimit.log ? log(" over connLimit") : "", s.action === "accept" ? "drop" : verdict));
        if (s.action !== "accept") continue;
      }
      const rate = s.rateLimit;
      if (rate?.log) out.push(join(match, rateText(rate, true), log(" over rateLimit")));
      out.push(join(match, rate ? rateText(rate, s.action !== "accept") : "", s.log ? log("") : "", verdict));
    }
  }
  return out;
}

export function renderFilterTable(view: ConfigView, holes: readonly ServiceHole[] = [], ingress: IngressSelection = new Map()): { content: string; digest: string } {
  const policySpec = view.all<FirewallPolicySpec>("FirewallPolicy")[0]?.spec;
  const roles = usesRoleMatrix(policySpec, view.all("FirewallZone").length > 0);
  // Without a FirewallPolicy (and no roles) nothing is filtered; with one, an unset default is drop.
  const unset = policySpec ? ("drop" as const) : ("accept" as const);
  const policy = {
    defaultInput: roles ? ("drop" as const) : (policySpec?.defaultInput ?? unset),
    defaultForward: roles ? ("drop" as const) : (policySpec?.defaultForward ?? unset),
    logDeny: policySpec?.logDeny ?? false,
  };
  const zones = view.all<FirewallZoneSpec>("FirewallZone");
  const rules = view.all<FirewallRuleSpec>("FirewallRule");
  const zoneIfnames = new Map(zones.map((z) => [z.metadata.name, z.spec.interfaces.map((i) => view.ifname(i))]));

  const zoneChains: Chain[] = [];
  const inputDispatch: string[] = [];
  const forwardDispatch: string[] = [];
  for (const z of zones) {
    const mine = rules.filter((r) => r.spec.fromZone === z.metadata.name && r.spec.toZone === "self");
    if (!mine.length) continue;
    const name = `input_${chainId(z.metadata.name)}`;
    zoneChains.push({ name, rules: mine.flatMap((r) => [`# FirewallRule/${r.metadata.name}`, ...ruleLines(r)]) });
    inputDispatch.push(`${ifnameMatch("iifname", zoneIfnames.get(z.metadata.name)!)} jump ${name}`);
  }
  for (const from of zones) {
    for (const to of zones) {
      const mine = rules.filter((r) => r.spec.fromZone === from.metadata.name && r.spec.toZone === to.metadata.name);
      if (!mine.length) continue;
      const name = `forward_${chainId(from.metadata.name)}_to_${chainId(to.metadata.name)}`;
      zoneChains.push({ name, rules: mine.flatMap((r) => [`# FirewallRule/${r.metadata.name}`, ...ruleLines(r)]) });
      forwardDispatch.push(`${ifnameMatch("iifname", zoneIfnames.get(from.metadata.name)!)} ${ifnameMatch("oifname", zoneIfnames.get(to.metadata.name)!)} jump ${name}`);
    }
  }
  // After the rules (a rule's verdict ends its chain's traffic; a rule that does not match falls through).
  const matrix = roles ? roleMatrixRules(zones, zoneIfnames, policySpec?.sameRoleAccept ?? false) : { input: [], forward: [] };

  const tail = (verdict: "accept" | "drop" | "reject", what: string) => {
    const out: string[] = [];
    if (policy.logDeny && verdict !== "accept") out.push(`limit rate 10/second burst 20 packets log prefix ${quote(`routerd deny ${what}: `)}`);
    if (verdict === "reject") out.push("reject with icmpx type admin-prohibited");
    return out;
  };
  const base = (verdict: "accept" | "drop" | "reject") => (verdict === "accept" ? "accept" : "drop");

  // Services without a healthy backend are answered before any zone rule could accept their port.
  const unserved = ingressFilterRules(view, ingress);
  // Protected zones (spec.reconcile.protectedZones) are never filtered: a config mistake cannot lock them out.
  const lifeline = (view.config.reconcile?.protectedZones ?? []).flatMap((z) => (zoneIfnames.get(z)?.length ? [`# FirewallZone/${z}: protected`, `${ifnameMatch("iifname", zoneIfnames.get(z)!)} accept`] : []));
  const input: string[] = [
    ...lifeline,
    "ct state established,related accept",
    "ct state invalid drop",
    ...unserved,
    'iifname "lo" accept',
    // IPv6 breaks without neighbour discovery; these never depend on zones.
    "meta l4proto ipv6-icmp icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit, nd-router-advert } accept",
    ...holes.flatMap((h) => [`# ${h.owner}`, ...holeRules(h)]),
    ...inputDispatch,
    ...matrix.input,
    ...tail(policy.defaultInput, "input"),
  ];
  const forwarded = view.all<PortForwardSpec>("PortForward").length + view.all("IngressService").length > 0;
  const forward: string[] = [
    ...lifeline,
    "ct state established,related accept",
    "ct state invalid drop",
    ...unserved,
    ...(forwarded ? ["# PortForward, IngressService: connections DNATed by routerd_nat", "ct status dnat accept"] : []),
    ...forwardDispatch,
    ...matrix.forward,
    ...tail(policy.defaultForward, "forward"),
  ];
  const sets: NftSetDef[] = [
    ...setDefs(view, rules.flatMap((r) => [r.spec.sourceSet, r.spec.destinationSetRefs, r.spec.excludeDestinationSetRefs])),
    ...rules.filter((r) => r.spec.connLimit).map((r) => ({ name: connSet(r.metadata.name), dynamic: true as const })),
  ];
  return renderTable(NFT_TABLES.filter.family, NFT_TABLES.filter.table, sets, [
    { name: "input", hook: `type filter hook input priority filter; policy ${base(policy.defaultInput)};`, rules: input },
    { name: "forward", hook: `type filter hook forward priority filter; policy ${base(policy.defaultForward)};`, rules: forward },
    ...zoneChains,
  ]);
}
