// Pre-policy paths from GoBGP's Adj-RIB-In stream (WatchEvent ADJIN), decoded to what import policy and
// best-path choice need. One event is one BGP UPDATE: its paths share their attributes, so each distinct
// attribute list is decoded once (the previous path's raw attributes are compared byte for byte).
import {
  AsPathAttribute,
  CommunitiesAttribute,
  LocalPrefAttribute,
  MpReachNLRIAttribute,
  MultiExitDiscAttribute,
  NextHopAttribute,
  OriginAttribute,
} from "@routerd/gobgp-api/gen/attribute";
import type { Path } from "@routerd/gobgp-api/gen/gobgp";
import type { Any } from "@routerd/gobgp-api/gen/google/protobuf/any";
import { TYPE_PREFIX as TYPE, prefixOf } from "../gobgp/codec.js";

export interface PathAttrs {
  nextHop: string;
  /** LOCAL_PREF as received (undefined: absent). */
  localPref: number | undefined;
  /** Every AS number on the path (loop detection). */
  asns: number[];
  /** Path length as best-path choice counts it: an AS_SET counts 1, confederation segments 0. */
  asPathLen: number;
  /** 0 IGP, 1 EGP, 2 incomplete. */
  origin: number;
  med: number;
  communities: number[];
}

export interface AdjInPath {
  neighbor: string;
  prefix: string;
  /** undefined: withdrawn. */
  attrs: PathAttrs | undefined;
}

const MP_REACH = TYPE + "MpReachNLRIAttribute";

function decodeAttrs(pattrs: Any[]): PathAttrs {
  const a: PathAttrs = { nextHop: "", localPref: undefined, asns: [], asPathLen: 0, origin: 0, med: 0, communities: [] };
  for (const any of pattrs) {
    switch (any.typeUrl.slice(TYPE.length)) {
      case "NextHopAttribute":
        a.nextHop = NextHopAttribute.decode(any.value).nextHop;
        break;
      case "MpReachNLRIAttribute":
        // IPv6: the first next hop is the global address; a link-local one may follow.
        a.nextHop = MpReachNLRIAttribute.decode(any.value).nextHops[0] ?? "";
        break;
      case "OriginAttribute":
        a.origin = OriginAttribute.decode(any.value).origin;
        break;
      case "LocalPrefAttribute":
        a.localPref = LocalPrefAttribute.decode(any.value).localPref;
        break;
      case "MultiExitDiscAttribute":
        a.med = MultiExitDiscAttribute.decode(any.value).med;
        break;
      case "CommunitiesAttribute":
        a.communities = CommunitiesAttribute.decode(any.value).communities;
        break;
      case "AsPathAttribute":
        for (const s of AsPathAttribute.decode(any.value).segments) {
          a.asns.push(...s.numbers);
          if (s.type === 2) a.asPathLen += s.numbers.length; // AS_SEQUENCE
          else if (s.type === 1) a.asPathLen += 1; // AS_SET
        }
        break;
    }
  }
  return a;
}

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
        const nh = MpReachNLRIAttribute.decode(mp.value).nextHops[0] ?? "";
        if (nh !== attrs.nextHop) attrs = { ...attrs, nextHop: nh };
      }
    } else {
      attrs = decodeAttrs(p.pattrs);
      last = attrs;
      lastRaw = p.pattrs;
    }
    out.push({ neighbor: p.neighborIp, prefix, attrs });
  }
  return out;
}
