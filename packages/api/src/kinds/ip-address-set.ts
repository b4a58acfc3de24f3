import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { NFT_TABLES, nftSetName, type NftTableRole } from "../tables.js";

export const ipAddressSetSpec = t.object({
  family: t.withDefault(t.enum("ipv4"), "ipv4"),
  addresses: t.array(
    t.union<string>("an IPv4 address or prefix", formats.ipv4(), formats.ipv4Cidr()),
    { minItems: 1, unique: true },
  ),
  names: t.refused("routerd does not resolve host names into sets", "list the addresses (addresses: [...])"),
  refreshInterval: t.refused("routerd does not resolve host names into sets, so there is nothing to refresh", "remove refreshInterval"),
});

export type IPAddressSetSpec = Infer<typeof ipAddressSetSpec>;

/** Which routerd table renders a set for a referring kind. */
const TABLE_OF_REFERRER: Record<string, NftTableRole> = {
  NAT44Rule: "nat",
  PortForward: "nat",
  FirewallRule: "filter",
  EgressRoutePolicy: "policy",
};

export const ipAddressSetKind = defineKind<IPAddressSetSpec>({
  apiVersion: API_GROUPS.net,
  kind: "IPAddressSet",
  description: "A named set of addresses and prefixes, rendered as an nftables set in every table that uses it.",
  class: "address-set",
  contract: { type: "ArtifactKinds", artifactKinds: ["nft.set"] },
  supportsWhen: true,
  spec: ipAddressSetSpec,
  status: (res) => ({ fields: { addresses: res.spec.addresses, ipv4Addresses: res.spec.addresses, ipv6Addresses: [] } }),
  provides: { addresses: "stringList", ipv4Addresses: "stringList", ipv6Addresses: "stringList", updatedAt: "timestamp" },
  check(res, ctx) {
    if (ctx.referrers("IPAddressSet", res.metadata.name).length === 0) {
      ctx.warn([], "no rule refers to this set, so it is not rendered anywhere");
    }
  },
  intents(res, ctx) {
    const roles = new Set<NftTableRole>();
    for (const r of ctx.referrers("IPAddressSet", res.metadata.name)) {
      const role = TABLE_OF_REFERRER[r.kind];
      if (role) roles.add(role);
    }
    return [...roles].sort().map((role): ArtifactIntent => {
      const { family, table } = NFT_TABLES[role];
      const set = nftSetName(res.metadata.name);
      return {
        kind: "nft.set",
        name: artifactNames.nftSet(family, table, set),
        owner: res.owner,
        action: "ensure",
        applyWith: `nft:${artifactNames.nftTable(family, table)}`,
        attributes: { family, table, set, elements: [...res.spec.addresses].sort() },
      };
    });
  },
});
