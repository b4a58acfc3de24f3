import { API_GROUPS, defineKind, type ConfigView } from "../kind.js";
import { dnsmasqIntents } from "../lan-services.js";
import { t, type Infer } from "../schema.js";
import { dependsOn } from "../status-source.js";
import { artifactNames } from "@routerd/resource";
import { delegationFact } from "./dhcpv6-prefix-delegation.js";

/** What the delegation's client asks its server for (routerd-dhcpv6-client always asks for all of them). */
const REQUESTABLE = ["dns-servers", "domain-search", "sntp-servers", "aftr-name"] as const;

export const dhcpv6InformationSpec = t.object({
  interface: t.interfaceRef().describe(
    "a LAN Interface whose clients get the information (it needs an IPv6RouterAdvertisement), or, as in the original, the WAN Interface a DHCPv6PrefixDelegation runs on: the resource then publishes what that server said",
  ),
  prefixDelegation: t.optional(
    t.ref("DHCPv6PrefixDelegation").describe("whose DNS servers and search list to pass on (default: the delegation of the interface's IPv6DelegatedAddress)"),
  ),
  request: t.optional(t.array(t.enum(...REQUESTABLE), { minItems: 1, unique: true }).describe("on the WAN: the information published (default: all)")),
  dependsOn: t.optional(dependsOn().describe("stay Pending, keeping what exists, until these hold")),
});

export type DHCPv6InformationSpec = Infer<typeof dhcpv6InformationSpec>;

/** The delegations whose IPv6DelegatedAddresses are on this interface, in config order. */
function delegationsOn(view: ConfigView, interfaceName: string): string[] {
  const names = view.all<{ interface: string; prefixDelegation: string }>("IPv6DelegatedAddress").filter((a) => a.spec.interface === interfaceName).map((a) => a.spec.prefixDelegation);
  return [...new Set(names)];
}

/** The original's meaning: the resource names the WAN interface its delegation's client runs on. */
export function onWan(view: ConfigView, spec: DHCPv6InformationSpec): string | undefined {
  return view.all<{ interface: string }>("DHCPv6PrefixDelegation").find((pd) => pd.spec.interface === spec.interface)?.metadata.name;
}

export function informationSource(view: ConfigView, spec: DHCPv6InformationSpec): string | undefined {
  if (spec.prefixDelegation) return spec.prefixDelegation;
  const wan = onWan(view, spec);
  if (wan) return wan;
  const on = delegationsOn(view, spec.interface);
  return on.length === 1 ? on[0] : undefined;
}

/**
 * What the delegation's server told us (DNS, search list). After a loss the client's last information is
 * kept: dnsmasq announces nothing on an interface without a prefix anyway, and an unchanged config keeps
 * dnsmasq running to announce the lost prefix as deprecated. Nothing while the client's state is unknown.
 */
export function delegatedInformation(view: ConfigView, spec: DHCPv6InformationSpec): { dnsServers: string[]; domainSearch: string[]; sntpServers: string[]; aftrName?: string } {
  const source = informationSource(view, spec);
  const fact = source ? delegationFact(view, source) : undefined;
  const info = fact?.state === "present" ? fact.value : fact?.state === "absent" ? fact.last : undefined;
  const list = (x: unknown) => (Array.isArray(x) ? x.filter((v): v is string => typeof v === "string") : []);
  const out = { dnsServers: list(info?.dnsServers), domainSearch: list(info?.domainSearch), sntpServers: list(info?.sntpServers) };
  return typeof info?.aftrName === "string" ? { ...out, aftrName: info.aftrName } : out;
}

export const dhcpv6InformationKind = defineKind<DHCPv6InformationSpec>({
  apiVersion: API_GROUPS.net,
  kind: "DHCPv6Information",
  description:
    "Passes the DNS servers and search list of a prefix delegation on to a LAN (stateless DHCPv6 and RDNSS/DNSSL) through the managed dnsmasq, while the prefix is held.",
  class: "lan-service",
  contract: { type: "ArtifactKinds", artifactKinds: ["file", "routerd.daemon"] },
  supportsWhen: true,
  spec: dhcpv6InformationSpec,
  status(res, ctx) {
    const source = informationSource(ctx, res.spec);
    const fact = source ? delegationFact(ctx, source) : undefined;
    const all = { source: source && `DHCPv6PrefixDelegation/${source}`, ...delegatedInformation(ctx, res.spec) };
    // On the WAN, `request` narrows what is published.
    const asked = res.spec.request;
    const fields = asked
      ? { source: all.source, ...(asked.includes("dns-servers") ? { dnsServers: all.dnsServers } : {}), ...(asked.includes("domain-search") ? { domainSearch: all.domainSearch } : {}), ...(asked.includes("sntp-servers") ? { sntpServers: all.sntpServers } : {}), ...(asked.includes("aftr-name") ? { aftrName: all.aftrName } : {}) }
      : all;
    return fact?.state === "unknown" ? { fields, unknown: `information of ${source} unknown (${fact.reason})` } : { fields };
  },
  provides: { source: "string", aftrName: "string", dnsServers: "stringList", sntpServers: "stringList", domainSearch: "stringList" },
  check(res, ctx) {
    const s = res.spec;
    const wan = onWan(ctx, s);
    if (wan) {
      if (s.prefixDelegation && s.prefixDelegation !== wan) ctx.error(["prefixDelegation"], `Interface ${s.interface} runs DHCPv6PrefixDelegation/${wan}, not ${s.prefixDelegation}`);
      return; // the original's meaning: it publishes what the WAN's server said
    }
    if (s.request) ctx.error(["request"], "only applies on the WAN (the interface a DHCPv6PrefixDelegation runs on)", "remove request");
    if (!s.prefixDelegation) {
      const on = delegationsOn(ctx, s.interface);
      if (on.length !== 1) {
        ctx.error(
          ["prefixDelegation"],
          on.length === 0 ? `no IPv6DelegatedAddress on Interface ${s.interface} names a delegation to take the information from` : `the interface's addresses come from ${on.join(", ")}: say which one`,
          "set prefixDelegation",
        );
      }
    }
    if (!ctx.all<{ interface: string }>("IPv6RouterAdvertisement").some((r) => r.spec.interface === s.interface)) {
      ctx.error(["interface"], `Interface ${s.interface} has no IPv6RouterAdvertisement`, "the O flag and RDNSS travel in router advertisements: add one");
    }
    for (const other of ctx.all<DHCPv6InformationSpec>("DHCPv6Information")) {
      if (other.index < res.index && other.spec.interface === s.interface) ctx.error(["interface"], `already served by DHCPv6Information/${other.metadata.name}`);
    }
  },
  // While the delegation's client is not answering, the dnsmasq config keeps the information it has.
  holdsExisting(res, ctx) {
    const source = informationSource(ctx, res.spec);
    const fact = source ? delegationFact(ctx, source) : undefined;
    return fact?.state === "unknown" ? `DNS information of ${source} unknown (${fact.reason})` : undefined;
  },
  intents(res, ctx) {
    if (!onWan(ctx, res.spec)) return dnsmasqIntents(res.owner);
    // On the WAN it only publishes; the plan shows the link it reads from.
    const ifname = ctx.ifname(res.spec.interface);
    return [{ kind: "linux.link", name: artifactNames.link(ifname), owner: res.owner, action: "observe", applyWith: "ip-batch", attributes: { ifname } }];
  },
});
