// GoBGP carries NLRI and path attributes as google.protobuf.Any: this packs the few routerd-bgp sends and
// unpacks the few it reads. Decoding is on the FIB's hot path (100k paths at start-up), so only the NLRI
// and the next hop are decoded there; the rest on demand for listings.
import {
  AsPathAttribute,
  CommunitiesAttribute,
  IPAddressPrefix,
  LocalPrefAttribute,
  MpReachNLRIAttribute,
  MultiExitDiscAttribute,
  NextHopAttribute,
  OriginAttribute,
} from "@routerd/gobgp-api/gen/attribute";
import { Family_Afi, Family_Safi, type Family, type Path } from "@routerd/gobgp-api/gen/gobgp";
import type { Any } from "@routerd/gobgp-api/gen/google/protobuf/any";

/** The typeUrl prefix of every GoBGP API message packed in an Any. */
export const TYPE_PREFIX = "type.googleapis.com/apipb.";

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

/** A best path as the FIB needs it. */
export interface FibPath {
  /** Canonical "address/length" as GoBGP prints it. */
  prefix: string;
  /** "" when the path has no usable next hop. */
  nextHop: string;
  withdraw: boolean;
  /** Originated here (redistributed or added through the API), not learned from a neighbor. */
  local: boolean;
  neighbor: string;
}

export function prefixOf(nlri: Any | undefined): string | undefined {
  if (nlri === undefined || !is(nlri, "IPAddressPrefix")) return undefined;
  const p = IPAddressPrefix.decode(nlri.value);
  return `${p.prefix}/${p.prefixLen}`;
}

function nextHopOf(pattrs: Any[]): string {
  for (const a of pattrs) {
    if (is(a, "NextHopAttribute")) return NextHopAttribute.decode(a.value).nextHop;
    // IPv6: the first next hop is the global address; a link-local one may follow.
    if (is(a, "MpReachNLRIAttribute")) return MpReachNLRIAttribute.decode(a.value).nextHops[0] ?? "";
  }
  return "";
}

const isLocal = (p: Path) => p.neighborIp === "" || p.neighborIp === "<nil>" || (p.uuid !== undefined && p.uuid.length > 0);

export function fibPathOf(p: Path): FibPath | undefined {
  const prefix = prefixOf(p.nlri);
  if (prefix === undefined) return undefined;
  return { prefix, nextHop: p.isWithdraw ? "" : nextHopOf(p.pattrs), withdraw: p.isWithdraw, local: isLocal(p), neighbor: p.neighborIp };
}

/** The attributes shown by `routerctl bgp routes`. */
export interface PathDetails extends FibPath {
  best: boolean;
  origin?: string;
  asPath: number[];
  localPref?: number;
  med?: number;
  communities: string[];
  ageSeconds?: number;
}

const ORIGINS = ["igp", "egp", "incomplete"];

export function communityText(c: number): string {
  const WELL_KNOWN: Record<number, string> = { 0xffffff01: "no-export", 0xffffff02: "no-advertise", 0xffffff03: "no-export-subconfed", 0xffff029a: "blackhole" };
  return WELL_KNOWN[c] ?? `${c >>> 16}:${c & 0xffff}`;
}

export function pathDetails(p: Path, now = Date.now()): PathDetails | undefined {
  const base = fibPathOf(p);
  if (base === undefined) return undefined;
  const d: PathDetails = { ...base, best: p.best, asPath: [], communities: [] };
  for (const a of p.pattrs) {
    if (is(a, "OriginAttribute")) d.origin = ORIGINS[OriginAttribute.decode(a.value).origin] ?? "incomplete";
    else if (is(a, "AsPathAttribute")) d.asPath = AsPathAttribute.decode(a.value).segments.flatMap((s) => s.numbers);
    else if (is(a, "LocalPrefAttribute")) d.localPref = LocalPrefAttribute.decode(a.value).localPref;
    else if (is(a, "MultiExitDiscAttribute")) d.med = MultiExitDiscAttribute.decode(a.value).med;
    else if (is(a, "CommunitiesAttribute")) d.communities = CommunitiesAttribute.decode(a.value).communities.map(communityText);
  }
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
