// routerd's own nftables tables. Each is rendered whole and replaced in one transaction.
import { artifactNames, type ArtifactIntent, type OwnerKey } from "@routerd/resource";

export const NFT_TABLES = {
  nat: { family: "ip", table: "routerd_nat" },
  filter: { family: "inet", table: "routerd_filter" },
  policy: { family: "ip", table: "routerd_policy" },
  // Bridged paths (VXLANTunnel tcpMSSClamp): only the bridge family sees frames a bridge forwards.
  mss: { family: "bridge", table: "routerd_mss" },
} as const;

export type NftTableRole = keyof typeof NFT_TABLES;

export function nftTableIntent(role: NftTableRole, owner: OwnerKey): ArtifactIntent {
  const { family, table } = NFT_TABLES[role];
  return {
    kind: "nft.table",
    name: artifactNames.nftTable(family, table),
    owner,
    action: "ensure",
    applyWith: "nft",
    attributes: { family, table },
  };
}

/** nft identifiers may not contain '-'; resource names may not contain '_', so this cannot collide. */
export function nftSetName(ipAddressSetName: string): string {
  return `set_${ipAddressSetName.replace(/-/g, "_")}`;
}
