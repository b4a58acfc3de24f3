import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { API_GROUPS, defineKind, type ConfigView, type Resource } from "../kind.js";
import type { DelegatedPrefix } from "../runtime.js";
import { t, type Infer } from "../schema.js";
import { dependsOn } from "../status-source.js";
import { delegationFact, requestedLength, type DHCPv6PrefixDelegationSpec } from "./dhcpv6-prefix-delegation.js";
import { deriveLanAddress, ipv6Formats, parseSubnetId, subnetCount } from "./ipv6-prefix.js";

/** RFC 8415's "infinity" lifetime. */
export const INFINITE_LIFETIME = 0xffffffff;

export const ipv6DelegatedAddressSpec = t.object(
  {
    prefixDelegation: t.ref("DHCPv6PrefixDelegation").describe("the delegation to number from"),
    interface: t.interfaceRef().describe("the LAN Interface that gets <prefix>:<subnetID>::<suffix>/64"),
    subnetID: t.withDefault(ipv6Formats.subnetId().describe("which /64 of the delegated prefix (0 = the first)"), 0),
    addressSuffix: t.withDefault(ipv6Formats.suffix().describe("the router's interface identifier in that /64"), "::1"),
    prefixLength: t.withDefault(t.int({ min: 64, max: 128 }).describe("prefix length the address is installed with (a /64 is what router advertisements announce)"), 64),
    announce: t.withDefault(t.bool().describe("an IPv6RouterAdvertisement on the interface announces this /64"), true),
    dependsOn: t.optional(dependsOn().describe("stay Pending, keeping what exists, until these hold")),
  },
  { aliases: { sendRA: "announce" } },
);

export type IPv6DelegatedAddressSpec = Infer<typeof ipv6DelegatedAddressSpec>;

export interface DelegatedLanAddress {
  ifname: string;
  address: string;
  /** The /64's network address. */
  network: string;
  /** ISO times; absent when the lifetime is infinite. */
  validUntil?: string;
  preferredUntil?: string;
}

/** The address this resource wants now, or why there is none (no prefix, or it does not fit). */
export function delegatedLanAddress(res: Resource<IPv6DelegatedAddressSpec>, view: ConfigView): { address?: DelegatedLanAddress; reason?: string; fact: ReturnType<typeof delegationFact> } {
  const fact = delegationFact(view, res.spec.prefixDelegation);
  if (fact.state !== "present") return { fact, reason: fact.state === "unknown" ? fact.reason : (fact.reason ?? "no delegated prefix") };
  const p: DelegatedPrefix = fact.value;
  const derived = deriveLanAddress({ prefix: p.prefix, length: p.prefixLength }, parseSubnetId(res.spec.subnetID), res.spec.addressSuffix);
  if (!derived.ok) return { fact, reason: derived.reason };
  const out: DelegatedLanAddress = { ifname: view.ifname(res.spec.interface), address: derived.address, network: derived.network };
  // The address carries the lease's lifetimes: the kernel drops it (and dnsmasq stops announcing it) when
  // the lease runs out, even if nobody renews or removes it.
  if (p.validLifetime !== INFINITE_LIFETIME) {
    const expires = Date.parse(p.expiresAt);
    out.validUntil = new Date(expires).toISOString();
    if (p.preferredLifetime !== INFINITE_LIFETIME) out.preferredUntil = new Date(expires - (p.validLifetime - p.preferredLifetime) * 1000).toISOString();
  }
  return { fact, address: out };
}

export const ipv6DelegatedAddressKind = defineKind<IPv6DelegatedAddressSpec>({
  apiVersion: API_GROUPS.net,
  kind: "IPv6DelegatedAddress",
  description:
    "A LAN /64 numbered from a delegated prefix (<prefix>:<subnetID>::<suffix>/64); it follows the lease and is removed when the prefix changes or is lost.",
  class: "address",
  contract: { type: "TeardownLifecycle", teardown: "resource", artifactKinds: ["linux.ipv6.address"] },
  supportsWhen: true,
  spec: ipv6DelegatedAddressSpec,
  status(res, ctx) {
    const { address, fact } = delegatedLanAddress(res, ctx);
    const fields = { interface: res.spec.interface, prefixSource: `DHCPv6PrefixDelegation/${res.spec.prefixDelegation}`, address: address && `${address.address}/${res.spec.prefixLength}`, dryRun: false };
    return fact.state === "unknown" ? { fields, unknown: `delegated prefix unknown (${fact.reason})` } : { fields };
  },
  provides: { address: "string", interface: "string", prefixSource: "string", dryRun: "bool" },
  check(res, ctx) {
    const s = res.spec;
    const pd = ctx.find<DHCPv6PrefixDelegationSpec>("DHCPv6PrefixDelegation", s.prefixDelegation);
    const length = pd ? requestedLength(pd.spec) : undefined;
    const id = parseSubnetId(s.subnetID);
    if (length !== undefined && id >= subnetCount(length)) {
      ctx.error(["subnetID"], `subnet ID ${id} does not fit in the ${64 - length} bits a /${length} leaves for /64s (0-${subnetCount(length) - 1n})`);
    }
    if (pd && pd.spec.interface === s.interface) ctx.error(["interface"], "is the delegation's own WAN interface; delegated /64s belong on LAN interfaces");
    if (s.prefixLength !== 64 && s.announce) ctx.error(["prefixLength"], `router advertisements announce /64s; a /${s.prefixLength} address is not announced`, "set announce: false, or prefixLength: 64");
    for (const other of ctx.all<IPv6DelegatedAddressSpec>("IPv6DelegatedAddress")) {
      if (other.index >= res.index || other.spec.prefixDelegation !== s.prefixDelegation) continue;
      if (parseSubnetId(other.spec.subnetID) === id) ctx.error(["subnetID"], `/64 number ${id} of ${s.prefixDelegation} is already used by IPv6DelegatedAddress/${other.metadata.name}`);
    }
  },
  holdsExisting(res, ctx) {
    const fact = delegationFact(ctx, res.spec.prefixDelegation);
    return fact.state === "unknown" ? `delegated prefix of ${res.spec.prefixDelegation} unknown (${fact.reason})` : undefined;
  },
  intents(res, ctx) {
    const ifname = ctx.ifname(res.spec.interface);
    // The link is observed whatever the lease: the plan shows where the address will go.
    const out: ArtifactIntent[] = [{ kind: "linux.link", name: artifactNames.link(ifname), owner: res.owner, action: "observe", applyWith: "ip-batch", attributes: { ifname } }];
    const { address: a } = delegatedLanAddress(res, ctx);
    if (!a) return out;
    out.push({
      kind: "linux.ipv6.address",
      name: artifactNames.ipv6Address(a.ifname, a.address, res.spec.prefixLength),
      owner: res.owner,
      action: "ensure",
      applyWith: "ip-batch",
      attributes: {
        ifname: a.ifname,
        address: a.address,
        prefixLength: res.spec.prefixLength,
        ...(a.validUntil ? { validUntil: a.validUntil } : {}),
        ...(a.preferredUntil ? { preferredUntil: a.preferredUntil } : {}),
      },
    });
    return out;
  },
});
