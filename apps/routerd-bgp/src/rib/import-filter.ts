// A neighbor's import policy evaluated by routerd-bgp itself, for the FIB (pure). It is the same policy
// gobgp/policy.ts renders into gobgpd (GoBGP still applies it to what it stores and re-advertises): the
// kernel gets what GoBGP's own best paths would be, computed from the pre-policy stream in bulk.
// Order as rendered: forbidden communities, allowed prefixes/lengths, required communities, accepted
// communities; then the actions that matter for forwarding (local preference, next-hop rewrite).
import { isIPv6 } from "node:net";
import type { DirectionPolicy } from "../gobgp/policy.js";
import { DEFAULT_LOCAL_PREF, communityValue } from "../gobgp/attrs.js";
import type { PathAttrs } from "./attrs.js";

export { communityValue };

function addressBits(address: string): bigint {
  if (!isIPv6(address)) return address.split(".").reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n);
  const [head, tail] = address.split("::") as [string, string | undefined];
  const h = head === "" ? [] : head.split(":");
  const t = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

interface Range {
  v6: boolean;
  network: bigint;
  len: number;
  min: number;
  max: number;
}

function rangeOf(prefix: string, min?: number, max?: number): Range {
  const [address, l] = prefix.split("/") as [string, string];
  const v6 = address.includes(":");
  const len = Number(l);
  const host = v6 ? 128 : 32;
  return { v6, network: addressBits(address) >> BigInt(host - len), len, min: Math.max(len, min ?? len), max: Math.min(host, max ?? host) };
}

function inside(r: Range, v6: boolean, bits: bigint, len: number): boolean {
  if (r.v6 !== v6 || len < r.min || len > r.max) return false;
  return bits >> BigInt((v6 ? 128 : 32) - r.len) === r.network;
}

/**
 * What the FIB uses of a path the policy accepts. Two calls rather than one result object: a full-table
 * load asks for every prefix, and an object per prefix is garbage the heap has to carry (docs/performance.md).
 */
export interface ImportFilter {
  /** The next hop to install, or undefined when the policy rejects the path. */
  nextHop(prefix: string, attrs: PathAttrs): string | undefined;
  /** The local preference of an accepted path (it does not depend on the prefix). */
  localPref(attrs: PathAttrs): number;
}


export function importFilter(neighbor: string, ownAsn: number, p: DirectionPolicy): ImportFilter {
  const imp = p.import ?? {};
  const forbidden = (imp.forbiddenCommunities ?? []).map(communityValue);
  const required = (imp.requiredCommunities ?? []).map(communityValue);
  const accept = (p.communities?.accept ?? []).map(communityValue);
  const limited = imp.allowedPrefixes?.length || imp.allowedPrefixLengthMin !== undefined || imp.allowedPrefixLengthMax !== undefined;
  const ranges = limited ? (imp.allowedPrefixes?.length ? imp.allowedPrefixes : ["0.0.0.0/0", "::/0"]).map((x) => rangeOf(x, imp.allowedPrefixLengthMin, imp.allowedPrefixLengthMax)) : [];
  const rewrite = imp.nextHopRewrite === "peer-address";
  const nextHop = (prefix: string, a: PathAttrs): string | undefined => {
    // GoBGP drops a path whose AS path holds our own AS (loop) before any policy.
    if (a.asns.includes(ownAsn)) return undefined;
    if (forbidden.length && a.communities.some((c) => forbidden.includes(c))) return undefined;
    if (limited) {
      const [address, l] = prefix.split("/") as [string, string];
      const v6 = address.includes(":");
      const bits = addressBits(address);
      const len = Number(l);
      if (!ranges.some((r) => inside(r, v6, bits, len))) return undefined;
    }
    for (const c of required) if (!a.communities.includes(c)) return undefined;
    if (accept.length && !a.communities.some((c) => accept.includes(c))) return undefined;
    const hop = rewrite ? neighbor : a.nextHop;
    return hop === "" || hop === "0.0.0.0" || hop === "::" ? undefined : hop;
  };
  return { nextHop, localPref: (a) => imp.localPreference ?? a.localPref ?? DEFAULT_LOCAL_PREF };
}
