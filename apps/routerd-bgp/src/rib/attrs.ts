// Pre-policy paths from GoBGP's Adj-RIB-In stream (WatchEvent ADJIN), decoded to what import policy and
// best-path choice need. One event is one BGP UPDATE: its paths share their attributes, so each distinct
// attribute list is decoded once (the previous path's raw attributes are compared byte for byte).
import type { Path } from "@routerd/gobgp-api/gen/gobgp";
import type { Any } from "@routerd/gobgp-api/gen/google/protobuf/any";
import { TYPE_PREFIX as TYPE, decodePathAttrs, mpReachNextHop, type PathAttrs } from "../gobgp/attrs.js";
import { prefixOf } from "../gobgp/codec.js";

export type { PathAttrs };

export interface AdjInPath {
  neighbor: string;
  prefix: string;
  /** undefined: withdrawn. */
  attrs: PathAttrs | undefined;
}

const MP_REACH = TYPE + "MpReachNLRIAttribute";

/** The same attributes apart from the IPv6 MP_REACH (which carries each path's own NLRI). */
function sameAttrs(a: Any[], b: Any[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.typeUrl !== y.typeUrl) return false;
    if (x.typeUrl !== MP_REACH && !Buffer.from(x.value.buffer, x.value.byteOffset, x.value.byteLength).equals(y.value)) return false;
  }
  return true;
}

/** Decodes one ADJIN table event. Paths without a usable NLRI (other families) are skipped. */
export function adjInPaths(paths: readonly Path[]): AdjInPath[] {
  const out: AdjInPath[] = [];
  let lastRaw: Any[] | undefined;
  let last: PathAttrs | undefined;
  for (const p of paths) {
    const prefix = prefixOf(p.nlri);
    if (prefix === undefined) continue;
    if (p.isWithdraw) {
      out.push({ neighbor: p.neighborIp, prefix, attrs: undefined });
      continue;
    }
    let attrs: PathAttrs;
    if (last !== undefined && lastRaw !== undefined && sameAttrs(lastRaw, p.pattrs)) {
      attrs = last;
      const mp = p.pattrs.find((x) => x.typeUrl === MP_REACH);
      if (mp !== undefined) {
        const nh = mpReachNextHop(mp.value);
        if (nh !== attrs.nextHop) attrs = { ...attrs, nextHop: nh };
      }
    } else {
      attrs = decodePathAttrs(p.pattrs);
      last = attrs;
      lastRaw = p.pattrs;
    }
    out.push({ neighbor: p.neighborIp, prefix, attrs });
  }
  return out;
}
