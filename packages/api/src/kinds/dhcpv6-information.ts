import { API_GROUPS, defineKind, type ConfigView } from "../kind.js";
import { dnsmasqIntents } from "../lan-services.js";
import { t, type Infer } from "../schema.js";
import { delegationFact } from "./dhcpv6-prefix-delegation.js";

export const dhcpv6InformationSpec = t.object({
  interface: t.interfaceRef().describe("the LAN Interface whose clients get the information (it needs an IPv6RouterAdvertisement)"),
  prefixDelegation: t.optional(
    t.ref("DHCPv6PrefixDelegation").describe("whose DNS servers and search list to pass on (default: the delegation of the interface's IPv6DelegatedAddress)"),
  ),
});

export type DHCPv6InformationSpec = Infer<typeof dhcpv6InformationSpec>;

/** The delegations whose IPv6DelegatedAddresses are on this interface, in config order. */
function delegationsOn(view: ConfigView, interfaceName: string): string[] {
  const names = view.all<{ interface: string; prefixDelegation: string }>("IPv6DelegatedAddress").filter((a) => a.spec.interface === interfaceName).map((a) => a.spec.prefixDelegation);
  return [...new Set(names)];
}

export function informationSource(view: ConfigView, spec: DHCPv6InformationSpec): string | undefined {
  if (spec.prefixDelegation) return spec.prefixDelegation;
  const on = delegationsOn(view, spec.interface);
  return on.length === 1 ? on[0] : undefined;
}

/**
 * What the delegation's server told us (DNS, search list). After a loss the client's last information is
 * kept: dnsmasq announces nothing on an interface without a prefix anyway, and an unchanged config keeps
 * dnsmasq running to announce the lost prefix as deprecated. Nothing while the client's state is unknown.
 */
export function delegatedInformation(view: ConfigView, spec: DHCPv6InformationSpec): { dnsServers: string[]; domainSearch: string[] } {
  const source = informationSource(view, spec);
  const fact = source ? delegationFact(view, source) : undefined;
  const info = fact?.state === "present" ? fact.value : fact?.state === "absent" ? fact.last : undefined;
  const list = (x: unknown) => (Array.isArray(x) ? x.filter((v): v is string => typeof v === "string") : []);
  return { dnsServers: list(info?.dnsServers), domainSearch: list(info?.domainSearch) };
}

export const dhcpv6InformationKind = defineKind<DHCPv6InformationSpec>({
  apiVersion: API_GROUPS.net,
  kind: "DHCPv6Information",
  description:
    "Passes the DNS servers and search list of a prefix delegation on to a LAN (stateless DHCPv6 and RDNSS/DNSSL) through the managed dnsmasq, while the prefix is held.",
  class: "lan-service",
  contract: { type: "ArtifactKinds", artifactKinds: ["file", "routerd.daemon"] },
  supportsWhen: false,
  spec: dhcpv6InformationSpec,
  status(res, ctx) {
    const source = informationSource(ctx, res.spec);
    const fact = source ? delegationFact(ctx, source) : undefined;
    const info = fact?.state === "present" ? fact.value : fact?.state === "absent" ? (fact.last ?? {}) : undefined;
    const fields = { source: source && `DHCPv6PrefixDelegation/${source}`, ...delegatedInformation(ctx, res.spec), sntpServers: info?.sntpServers ?? [], aftrName: info?.aftrName };
    return fact?.state === "unknown" ? { fields, unknown: `information of ${source} unknown (${fact.reason})` } : { fields };
  },
  provides: { source: "string", aftrName: "string", dnsServers: "stringList", sntpServers: "stringList", domainSearch: "stringList" },
  check(res, ctx) {
    const s = res.spec;
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
  intents: (res) => dnsmasqIntents(res.owner),
});
