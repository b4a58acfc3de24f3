// GoBGP carries NLRI and path attributes as google.protobuf.Any: this packs the few routerd-bgp sends and
// unpacks NLRIs; path attributes are decoded by attrs.ts (one decoder for the FIB and the listings).
import { AsPathAttribute, CommunitiesAttribute, IPAddressPrefix, MpReachNLRIAttribute, NextHopAttribute, OriginAttribute } from "@routerd/gobgp-api/gen/attribute";
import { Family_Afi, Family_Safi, type Family, type Path } from "@routerd/gobgp-api/gen/gobgp";
import type { Any } from "@routerd/gobgp-api/gen/google/protobuf/any";
import { TYPE_PREFIX, communityText, decodePathAttrs, originName } from "./attrs.js";

export { TYPE_PREFIX, communityText };

export const FAMILY_IPV4: Family = { afi: Family_Afi.AFI_IP, safi: Family_Safi.SAFI_UNICAST };
export const FAMILY_IPV6: Family = { afi: Family_Afi.AFI_IP6, safi: Family_Safi.SAFI_UNICAST };

export const familyOf = (prefix: string): Family => (prefix.includes(":") ? FAMILY_IPV6 : FAMILY_IPV4);

interface Codec<T> {
  encode(message: T): { finish(): Uint8Array };
  decode(input: Uint8Array): T;
}

function pack<T>(name: string, codec: Codec<T>, message: T): Any {
  return { typeUrl: TYPE_PREFIX + name, value: Buffer.from(codec.encode(message).finish()) };
}

const is = (any: Any, name: string) => any.typeUrl.length === TYPE_PREFIX.length + name.length && any.typeUrl.endsWith(name);

export function prefixOf(nlri: Any | undefined): string | undefined {
  if (nlri === undefined || !is(nlri, "IPAddressPrefix")) return undefined;
  const p = IPAddressPrefix.decode(nlri.value);
  return `${p.prefix}/${p.prefixLen}`;
}

const isLocal = (p: Path) => p.neighborIp === "" || p.neighborIp === "<nil>" || (p.uuid !== undefined && p.uuid.length > 0);

/** A path as `routerctl bgp routes` shows it: the attributes as the best-path choice reads them (attrs.ts). */
export interface PathDetails {
  /** Canonical "address/length" as GoBGP prints it. */
  prefix: string;
  /** "" when the path has no usable next hop (or is a withdraw). */
  nextHop: string;
  withdraw: boolean;
  /** Originated here (redistributed or added through the API), not learned from a neighbor. */
  local: boolean;
  neighbor: string;
  best: boolean;
  origin: string;
  asPath: number[];
  /** As received (undefined: absent, DEFAULT_LOCAL_PREF applies). */
  localPref?: number;
  /** MISSING_MED (0) when absent, as in the best-path choice. */
  med: number;
  communities: string[];
  ageSeconds?: number;
}

export function pathDetails(p: Path, now = Date.now()): PathDetails | undefined {
  const prefix = prefixOf(p.nlri);
  if (prefix === undefined) return undefined;
  const a = decodePathAttrs(p.pattrs);
  const d: PathDetails = {
    prefix,
    nextHop: p.isWithdraw ? "" : a.nextHop,
    withdraw: p.isWithdraw,
    local: isLocal(p),
    neighbor: p.neighborIp,
    best: p.best,
    origin: originName(a.origin),
    asPath: a.asns,
    med: a.med,
    communities: a.communities.map(communityText),
  };
  if (a.localPref !== undefined) d.localPref = a.localPref;
  if (p.age !== undefined) d.ageSeconds = Math.max(0, Math.round((now - p.age.getTime()) / 1000));
  return d;
}

/** A path routerd-bgp originates (redistributed connected/static prefix), next hop chosen by GoBGP. */
export function originatedPath(prefix: string): Path {
  const [address, len] = prefix.split("/") as [string, string];
  const v6 = address.includes(":");
  const nlri = pack("IPAddressPrefix", IPAddressPrefix, { prefix: address, prefixLen: Number(len) });
  const origin = pack("OriginAttribute", OriginAttribute, { origin: 2 }); // incomplete: redistributed
  const nextHop = v6
    ? pack("MpReachNLRIAttribute", MpReachNLRIAttribute, { family: FAMILY_IPV6, nextHops: ["::"], nlris: [nlri] })
    : pack("NextHopAttribute", NextHopAttribute, { nextHop: "0.0.0.0" });
  return {
    nlri,
    pattrs: [origin, nextHop],
    family: v6 ? FAMILY_IPV6 : FAMILY_IPV4,
    best: false,
    isWithdraw: false,
    noImplicitWithdraw: false,
    sourceAsn: 0,
    sourceId: "",
    filtered: false,
    stale: false,
    isFromExternal: false,
    neighborIp: "",
    uuid: Buffer.alloc(0),
    isNexthopInvalid: false,
    identifier: 0,
    localIdentifier: 0,
    nlriBinary: Buffer.alloc(0),
    pattrsBinary: [],
    validation: undefined,
  } as Path;
}

/** A path for a benchmark or test peer: prefix via nextHop with an AS path and communities. */
export function announcedPath(prefix: string, nextHop: string, asPath: number[] = [], communities: number[] = []): Path {
  const p = originatedPath(prefix);
  const v6 = prefix.includes(":");
  const nlri = p.nlri!;
  p.pattrs = [
    pack("OriginAttribute", OriginAttribute, { origin: 0 }),
    v6
      ? pack("MpReachNLRIAttribute", MpReachNLRIAttribute, { family: FAMILY_IPV6, nextHops: [nextHop], nlris: [nlri] })
      : pack("NextHopAttribute", NextHopAttribute, { nextHop }),
    ...(asPath.length ? [pack("AsPathAttribute", AsPathAttribute, { segments: [{ type: 2, numbers: asPath }] })] : []),
    ...(communities.length ? [pack("CommunitiesAttribute", CommunitiesAttribute, { communities })] : []),
  ];
  return p;
}
