// The one decoder of GoBGP's path attributes (google.protobuf.Any each): the FIB's best-path choice
// (rib/) and the route listings (codec.ts pathDetails) both read paths through it, so they agree.
// Rules for absent attributes, as GoBGP applies them:
// - MULTI_EXIT_DISC absent: 0 — RFC 4271 9.1.2.2 (c) ("a route that does not have the MED attribute is
//   considered to have the lowest possible MED value"); GoBGP has no missing-as-worst option.
// - LOCAL_PREF absent (eBGP paths): 100 (GoBGP's default local preference), unless the import policy sets one.
import {
  AsPathAttribute,
  CommunitiesAttribute,
  LocalPrefAttribute,
  MpReachNLRIAttribute,
  MultiExitDiscAttribute,
  NextHopAttribute,
  OriginAttribute,
} from "@routerd/gobgp-api/gen/attribute";
import type { Any } from "@routerd/gobgp-api/gen/google/protobuf/any";

/** The typeUrl prefix of every GoBGP API message packed in an Any. */
export const TYPE_PREFIX = "type.googleapis.com/apipb.";

/** MED of a path without the attribute (RFC 4271 9.1.2.2 (c); GoBGP). */
export const MISSING_MED = 0;
/** LOCAL_PREF of a path without the attribute (GoBGP's default). */
export const DEFAULT_LOCAL_PREF = 100;

export interface PathAttrs {
  nextHop: string;
  /** LOCAL_PREF as received (undefined: absent; DEFAULT_LOCAL_PREF then applies). */
  localPref: number | undefined;
  /** Every AS number on the path, in order (loop detection, listings). */
  asns: number[];
  /** Path length as best-path choice counts it: an AS_SET counts 1, confederation segments 0. */
  asPathLen: number;
  /** 0 IGP, 1 EGP, 2 incomplete (absent: IGP). */
  origin: number;
  /** MISSING_MED when absent. */
  med: number;
  communities: number[];
}

const AS_SET = 1;
const AS_SEQUENCE = 2;

type Decoder = (a: PathAttrs, value: Uint8Array) => void;

/** attribute message name → what it sets. */
const DECODERS: Record<string, Decoder> = {
  NextHopAttribute: (a, v) => void (a.nextHop = NextHopAttribute.decode(v).nextHop),
  // IPv6: the first next hop is the global address; a link-local one may follow.
  MpReachNLRIAttribute: (a, v) => void (a.nextHop = MpReachNLRIAttribute.decode(v).nextHops[0] ?? ""),
  OriginAttribute: (a, v) => void (a.origin = OriginAttribute.decode(v).origin),
  LocalPrefAttribute: (a, v) => void (a.localPref = LocalPrefAttribute.decode(v).localPref),
  MultiExitDiscAttribute: (a, v) => void (a.med = MultiExitDiscAttribute.decode(v).med),
  CommunitiesAttribute: (a, v) => void (a.communities = CommunitiesAttribute.decode(v).communities),
  AsPathAttribute: (a, v) => {
    for (const s of AsPathAttribute.decode(v).segments) {
      a.asns.push(...s.numbers);
      if (s.type === AS_SEQUENCE) a.asPathLen += s.numbers.length;
      else if (s.type === AS_SET) a.asPathLen += 1;
    }
  },
};

export function decodePathAttrs(pattrs: readonly Any[]): PathAttrs {
  const a: PathAttrs = { nextHop: "", localPref: undefined, asns: [], asPathLen: 0, origin: 0, med: MISSING_MED, communities: [] };
  for (const any of pattrs) {
    if (!any.typeUrl.startsWith(TYPE_PREFIX)) continue;
    DECODERS[any.typeUrl.slice(TYPE_PREFIX.length)]?.(a, any.value);
  }
  return a;
}

/** The IPv6 next hop of one path (its MP_REACH carries its own NLRI, so it is not shared with others). */
export function mpReachNextHop(value: Uint8Array): string {
  return MpReachNLRIAttribute.decode(value).nextHops[0] ?? "";
}

const ORIGINS = ["igp", "egp", "incomplete"];
export const originName = (origin: number): string => ORIGINS[origin] ?? "incomplete";

const WELL_KNOWN_COMMUNITIES: Record<string, number> = {
  "no-export": 0xffffff01,
  "no-advertise": 0xffffff02,
  "no-export-subconfed": 0xffffff03,
  blackhole: 0xffff029a,
  "graceful-shutdown": 0xffff0000,
  "llgr-stale": 0xffff0006,
  "no-llgr": 0xffff0007,
};
const COMMUNITY_NAMES = new Map(Object.entries(WELL_KNOWN_COMMUNITIES).map(([name, value]) => [value, name]));

/** "65000:100" or a well-known name → the 32-bit community value. */
export function communityValue(text: string): number {
  const known = WELL_KNOWN_COMMUNITIES[text];
  if (known !== undefined) return known;
  const [hi, lo] = text.split(":").map(Number) as [number, number];
  return ((hi << 16) | lo) >>> 0;
}

/** The 32-bit community value → its well-known name or "asn:value". */
export function communityText(c: number): string {
  return COMMUNITY_NAMES.get(c) ?? `${c >>> 16}:${c & 0xffff}`;
}
