// `IPv4StaticAddress.exclusive`: the operator asks routerd to remove every other IPv4 address from the
// interface. Only addresses nothing in the config wants and the ledger does not record (routerd's own
// leftovers are the GC's business) are removed, and only while the address inventory is known. Pure.
import type { IPv4StaticAddressSpec, Resource } from "@routerd/api";
import { artifactId, type Attributes, type Inventory, type Ledger, type OwnerKey } from "@routerd/resource";
import type { DesiredState } from "./desired.js";

export interface ExclusiveRemoval {
  owner: OwnerKey;
  kind: "linux.ipv4.address";
  name: string;
  attributes: Attributes;
  reason: string;
}

export function exclusiveRemovals(desired: DesiredState, inventory: Inventory, ledger: Ledger): ExclusiveRemoval[] {
  const exclusive = desired.view.active.filter((r): r is Resource<IPv4StaticAddressSpec> => r.kind === "IPv4StaticAddress" && (r.spec as IPv4StaticAddressSpec).exclusive);
  const addresses = inventory.get("linux.ipv4.address");
  if (!exclusive.length || addresses?.status !== "known") return [];
  const wanted = new Set(desired.desired.map(artifactId));
  const out: ExclusiveRemoval[] = [];
  for (const r of exclusive) {
    const mine = desired.intents.get(r.owner)?.find((i) => i.kind === "linux.ipv4.address");
    if (!mine) continue;
    const ifname = mine.attributes.ifname;
    for (const item of addresses.items.values()) {
      if (item.attributes.ifname !== ifname || wanted.has(artifactId(item)) || ledger.get(item.kind, item.name)) continue;
      out.push({ owner: r.owner, kind: "linux.ipv4.address", name: item.name, attributes: item.attributes, reason: `exclusive: ${r.kind}/${r.metadata.name} removes other IPv4 addresses from ${String(ifname)}` });
    }
  }
  return out;
}
