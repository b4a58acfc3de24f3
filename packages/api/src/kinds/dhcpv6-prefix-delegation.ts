import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { API_GROUPS, defineKind, type ConfigView } from "../kind.js";
import type { DelegatedPrefix, RuntimeFact } from "../runtime.js";
import { t, type Infer } from "../schema.js";
import { ipv6Formats, parseIpv6Prefix } from "./ipv6-prefix.js";

export const DHCPV6_CLIENT_DAEMON = "dhcpv6-client";
/** Metric of the unreachable route for the whole delegated prefix (RFC 7084 WPD-5). */
export const DELEGATED_UNREACHABLE_METRIC = 2048;

export const dhcpv6PrefixDelegationSpec = t.object({
  interface: t.interfaceRef().describe("the WAN Interface to run routerd-dhcpv6-client on (from its link-local address)"),
  prefixLength: t.optional(t.int({ min: 1, max: 64 }).describe("prefix length to ask for, e.g. 56 (a hint; the server decides)")),
  hint: t.optional(ipv6Formats.prefix().describe("prefix to ask for, e.g. 2001:db8:1000::/56 (default: the last delegated prefix)")),
  releaseOnStop: t.withDefault(t.bool().describe("send RELEASE when the client stops"), true),
  duidType: t.withDefault(t.enum("ll", "llt", "en").describe("DUID type when none is stored yet (the stored DUID always wins)"), "ll"),
  profile: t.withDefault(
    t.enum("default", "ntt-ngn-direct-hikari-denwa", "ntt-hgw-lan-pd").describe("provider defaults: the NTT profiles ask for a /60 with a link-layer DUID"),
    "default",
  ),
  client: t.refused("routerd runs its own DHCPv6 client (routerd-dhcpv6-client)", "remove client"),
  clientDUID: t.refused("routerd-dhcpv6-client keeps its own DUID: generated once (duidType) and stored with its state", "remove clientDUID; duidType: ll|llt|en chooses the kind"),
  required: t.refused("a delegation is never optional here: what uses its prefix waits (Pending) until it is delegated", "remove required"),
});

export type DHCPv6PrefixDelegationSpec = Infer<typeof dhcpv6PrefixDelegationSpec>;

/** The prefix length this delegation asks for (hint first, then prefixLength, then the profile's), if any. */
export function requestedLength(spec: DHCPv6PrefixDelegationSpec): number | undefined {
  return spec.hint ? parseIpv6Prefix(spec.hint)?.length : (spec.prefixLength ?? (spec.profile.startsWith("ntt-") ? 60 : undefined));
}

/** The delegation's runtime fact: what routerd-dhcpv6-client holds for it now. */
export function delegationFact(view: ConfigView, name: string): RuntimeFact<DelegatedPrefix> {
  return view.runtime.delegatedPrefix(name);
}

export const dhcpv6PrefixDelegationKind = defineKind<DHCPv6PrefixDelegationSpec>({
  apiVersion: API_GROUPS.net,
  kind: "DHCPv6PrefixDelegation",
  description:
    "Gets an IPv6 prefix delegated by DHCPv6-PD on a WAN interface (routerd-dhcpv6-client); LAN addresses and router advertisements follow it.",
  class: "wan-acquisition",
  contract: { type: "ArtifactKinds", artifactKinds: ["routerd.daemon", "linux.ipv6.route"] },
  supportsWhen: true,
  spec: dhcpv6PrefixDelegationSpec,
  status(res, ctx) {
    const fact = delegationFact(ctx, res.metadata.name);
    const base = { interface: res.spec.interface };
    if (fact.state === "unknown") return { fields: base, unknown: `delegated prefix unknown (${fact.reason})` };
    const phase = fact.phase ? { phase: fact.phase } : {};
    // After a loss the DNS information the client still reports stays published; the prefix does not.
    const info = fact.state === "present" ? fact.value : (fact.last ?? {});
    return {
      ...phase,
      fields: {
        ...base,
        currentPrefix: fact.state === "present" ? `${fact.value.prefix}/${fact.value.prefixLength}` : undefined,
        dnsServers: info.dnsServers ?? [],
        sntpServers: info.sntpServers ?? [],
        domainSearch: info.domainSearch ?? [],
        aftrName: info.aftrName,
      },
    };
  },
  provides: { interface: "string", currentPrefix: "string", dnsServers: "stringList", sntpServers: "stringList", domainSearch: "stringList", aftrName: "string" },
  check(res, ctx) {
    const s = res.spec;
    const hint = s.hint ? parseIpv6Prefix(s.hint) : undefined;
    if (hint && s.prefixLength !== undefined && hint.length !== s.prefixLength) {
      ctx.error(["hint"], `the hint is a /${hint.length} but prefixLength is ${s.prefixLength}`, "drop prefixLength or make them agree");
    }
    if (hint && hint.length > 64) ctx.error(["hint"], "a prefix longer than /64 cannot number a LAN");
    if (s.profile.startsWith("ntt-") && s.duidType !== "ll") ctx.error(["duidType"], `the ${s.profile} profile needs a link-layer DUID`, "remove duidType (ll is the default)");
    for (const other of ctx.all<DHCPv6PrefixDelegationSpec>("DHCPv6PrefixDelegation")) {
      if (other.index < res.index && other.spec.interface === s.interface) {
        ctx.error(["interface"], `Interface ${s.interface} already runs DHCPv6PrefixDelegation/${other.metadata.name}`, "one client per interface: port 546 is bound per interface");
      }
    }
  },
  holdsExisting(res, ctx) {
    const fact = delegationFact(ctx, res.metadata.name);
    return fact.state === "unknown" ? `delegated prefix unknown (${fact.reason})` : undefined;
  },
  intents(res, ctx) {
    const out: ArtifactIntent[] = [
      {
        kind: "routerd.daemon",
        name: artifactNames.daemon(DHCPV6_CLIENT_DAEMON, res.metadata.name),
        owner: res.owner,
        action: "ensure",
        applyWith: "supervisor",
        attributes: { daemon: DHCPV6_CLIENT_DAEMON, instance: res.metadata.name },
      },
    ];
    const fact = delegationFact(ctx, res.metadata.name);
    if (fact.state !== "present") return out;
    // What the LANs do not use must not be routed back out of the WAN (a loop with the ISP's route).
    const p = parseIpv6Prefix(`${fact.value.prefix}/${fact.value.prefixLength}`);
    if (!p) return out;
    const destination = `${p.prefix}/${p.length}`;
    out.push({
      kind: "linux.ipv6.route",
      name: artifactNames.route(254, destination, DELEGATED_UNREACHABLE_METRIC),
      owner: res.owner,
      action: "ensure",
      applyWith: "ip-batch",
      attributes: { table: 254, destination, metric: DELEGATED_UNREACHABLE_METRIC, type: "unreachable" },
    });
    return out;
  },
});
