// Deleting an IPv4 address deletes the link's other addresses in the same subnet with it when it is their
// primary and promote_secondaries is off (the kernel's default): replacing 192.0.2.1/24 by 192.0.2.2/24 (the
// new one is added first, as a secondary) would lose both, and with the last address every route on the link.
// So while such a delete runs, the link promotes its secondaries; the previous setting is put back after.
import { readFileSync, writeFileSync } from "node:fs";
import type { Attributes, Inventory } from "@routerd/resource";
import type { Step } from "./apply.js";

const KIND = "linux.ipv4.address";

function subnetOf(attrs: Attributes): string | undefined {
  const address = String(attrs.address ?? "");
  const length = Number(attrs.prefixLength);
  const octets = address.split(".").map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o)) || !Number.isInteger(length)) return undefined;
  const value = octets.reduce((acc, o) => acc * 256 + o, 0);
  const size = 2 ** (32 - length);
  return `${attrs.ifname}/${Math.floor(value / size) * size}/${length}`;
}

/**
 * Links where one of these steps deletes an IPv4 address that may have a same-subnet sibling: an address seen
 * on the link before this run (ours or not) or one this run adds. Unknown observations count as "may".
 */
export function linksNeedingPromotion(steps: readonly Step[], all: readonly Step[], inventory: Inventory): string[] {
  const removals = steps.filter((s) => s.op === "remove" && s.kind === KIND);
  if (!removals.length) return [];
  const observed = inventory.get(KIND);
  const siblings = new Map<string, Set<string>>(); // subnet → addresses
  const add = (attrs: Attributes) => {
    const subnet = subnetOf(attrs);
    if (subnet) siblings.set(subnet, (siblings.get(subnet) ?? new Set()).add(String(attrs.address)));
  };
  if (observed?.status === "known") for (const item of observed.items.values()) add(item.attributes);
  for (const s of all) if (s.op === "ensure" && s.kind === KIND) add(s.attributes);
  const links = new Set<string>();
  for (const r of removals) {
    const subnet = subnetOf(r.attributes);
    const others = subnet ? [...(siblings.get(subnet) ?? [])].filter((a) => a !== String(r.attributes.address)) : [];
    if (observed?.status !== "known" || others.length) links.add(String(r.attributes.ifname));
  }
  return [...links];
}

/**
 * Turns promote_secondaries on for these links and returns what puts the old values back. A crash in between
 * leaves it on, which is harmless (systemd's default turns it on everywhere).
 */
export function promoteSecondaries(links: readonly string[]): () => void {
  const restore: { path: string; value: string }[] = [];
  for (const link of links) {
    const path = `/proc/sys/net/ipv4/conf/${link}/promote_secondaries`; // not sysctlPath: a VLAN name has dots
    let value: string;
    try {
      value = readFileSync(path, "utf8").trim();
    } catch {
      continue; // the link is gone: nothing of it to keep
    }
    if (value === "1") continue;
    writeFileSync(path, "1\n");
    restore.push({ path, value });
  }
  return () => {
    for (const r of restore) {
      try {
        writeFileSync(r.path, `${r.value}\n`);
      } catch {
        // the link went away meanwhile
      }
    }
  };
}
