// Address matches shared by the table renderers. "CIDRs or a set" means either matches, so each
// alternative becomes its own rule (nft conditions on one line are AND).
import { nftSetName, type ConfigView, type IPAddressSetSpec } from "@routerd/api";
import { anonSet, type NftSetDef } from "./text.js";

/** IPAddressSet names: one (routerd's sourceSet), a list (the original's *SetRefs), or none. */
export type SetNames = string | readonly string[] | undefined;
const setList = (sets: SetNames): readonly string[] => (sets === undefined ? [] : typeof sets === "string" ? [sets] : sets);

export function addressAlternatives(field: "saddr" | "daddr", cidrs: readonly string[], sets: SetNames): string[] {
  const out: string[] = [];
  if (cidrs.length) out.push(`ip ${field} ${anonSet([...cidrs].sort())}`);
  for (const set of setList(sets)) out.push(`ip ${field} @${nftSetName(set)}`);
  return out.length ? out : [""];
}

export function exclusion(field: "saddr" | "daddr", cidrs: readonly string[], sets: SetNames): string {
  const parts: string[] = [];
  if (cidrs.length) parts.push(`ip ${field} != ${anonSet([...cidrs].sort())}`);
  for (const set of setList(sets)) parts.push(`ip ${field} != @${nftSetName(set)}`);
  return parts.join(" ");
}

export const join = (...parts: string[]) => parts.filter(Boolean).join(" ");

/** The IPAddressSets named by `names`, as nft set definitions. */
export function setDefs(view: ConfigView, names: Iterable<SetNames>): NftSetDef[] {
  const unique = [...new Set([...names].flatMap((n) => setList(n)))].sort();
  return unique.flatMap((n) => {
    const r = view.find<IPAddressSetSpec>("IPAddressSet", n);
    return r ? [{ name: nftSetName(n), elements: r.spec.addresses }] : [];
  });
}

export function portMatch(protocol: string, port: number | string | undefined, dir: "dport" | "sport" = "dport"): string {
  if (protocol === "any") return "";
  if (protocol === "icmp") return "meta l4proto icmp";
  return port === undefined ? `meta l4proto ${protocol}` : `${protocol} ${dir} ${port}`;
}
