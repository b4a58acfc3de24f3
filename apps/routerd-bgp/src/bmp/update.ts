// A BGP UPDATE message (RFC 4271 4.3, RFC 4760 MP_REACH/MP_UNREACH, RFC 6793 AS4_PATH) decoded to what
// the RIB consumes from GoBGP's watch stream (rib/attrs.ts AdjInPath): IPv4 and IPv6 unicast only. The
// attributes are decoded once per UPDATE and shared by its prefixes (as gobgp/watch-decode.ts does), and
// the values follow GoBGP's conversion to api.Path that gobgp/attrs.ts reads: absent MED 0, absent
// LOCAL_PREF undefined, the global IPv6 next hop (a link-local one after it is ignored), AS_SET counts 1.
// Pure: bytes in, paths out.
import { MISSING_MED, type PathAttrs } from "../gobgp/attrs.js";
import type { AdjInPath } from "../rib/attrs.js";
import { ipv4Text, ipv6Text, prefixText } from "./text.js";

export const BGP_HEADER = 19;
const UPDATE = 2;

const ORIGIN = 1;
const AS_PATH = 2;
const NEXT_HOP = 3;
const MED = 4;
const LOCAL_PREF = 5;
const COMMUNITIES = 8;
const MP_REACH = 14;
const MP_UNREACH = 15;
const AS4_PATH = 17;

const AS_SET = 1;
const AS_SEQUENCE = 2;

export const AFI_IPV4 = 1;
export const AFI_IPV6 = 2;
const SAFI_UNICAST = 1;

export interface UpdateResult {
  paths: AdjInPath[];
  /** An End-of-RIB marker (RFC 4724: an UPDATE with nothing in it, or an empty MP_UNREACH): its AFI. */
  endOfRib?: number;
}

export class BgpDecodeError extends Error {}

/**
 * The last attributes decoded on one stream: an UPDATE whose attributes equal them gets the same object.
 * GoBGP's snapshot sends one UPDATE per path (100k for a full table), and a table load many UPDATEs with
 * the same attributes: shared, they cost the RIB one path object per run rather than one per prefix.
 */
export interface AttrMemo {
  last?: PathAttrs;
}

const sameNumbers = (a: number[], b: number[]) => a.length === b.length && a.every((v, i) => v === b[i]);
const sameAttrs = (a: PathAttrs, b: PathAttrs) =>
  a.nextHop === b.nextHop && a.localPref === b.localPref && a.origin === b.origin && a.med === b.med && a.asPathLen === b.asPathLen && sameNumbers(a.asns, b.asns) && sameNumbers(a.communities, b.communities);

function remembered(memo: AttrMemo | undefined, attrs: PathAttrs): PathAttrs {
  if (memo === undefined) return attrs;
  if (memo.last !== undefined && sameAttrs(memo.last, attrs)) return memo.last;
  memo.last = attrs;
  return attrs;
}

/** A unicast family we read: its NLRI address length. */
const familyBytes = (afi: number, safi: number) => (safi !== SAFI_UNICAST ? 0 : afi === AFI_IPV4 ? 4 : afi === AFI_IPV6 ? 16 : 0);

/**
 * One BGP message (with its 19-byte header) from `neighbor`; `twoByteAs`: the session did not negotiate
 * 4-byte AS numbers (the BMP per-peer header's A flag), so AS_PATH holds 2-byte numbers and AS4_PATH the
 * real ones. Messages other than UPDATE give nothing.
 */
export function decodeUpdate(buf: Buffer, start: number, end: number, neighbor: string, twoByteAs = false, memo?: AttrMemo): UpdateResult {
  if (end - start < BGP_HEADER || buf[start + 18] !== UPDATE) return { paths: [] };
  let at = start + BGP_HEADER;
  const withdrawnLen = buf.readUInt16BE(at);
  at += 2;
  const withdrawnEnd = at + withdrawnLen;
  const attrsLen = buf.readUInt16BE(withdrawnEnd);
  const attrsStart = withdrawnEnd + 2;
  const attrsEnd = attrsStart + attrsLen;
  if (attrsEnd > end) throw new BgpDecodeError("UPDATE lengths exceed the message");
  const paths: AdjInPath[] = [];
  readPrefixes(buf, at, withdrawnEnd, 4, (prefix) => paths.push({ neighbor, prefix, attrs: undefined }));
  if (attrsLen === 0 && withdrawnLen === 0 && attrsEnd === end) return { paths, endOfRib: AFI_IPV4 };

  const s = scanAttrs(buf, attrsStart, attrsEnd, twoByteAs);
  if (s.unreach !== undefined) {
    const [afi, safi, nlriStart, nlriEnd] = s.unreach;
    if (nlriStart === nlriEnd && attrsLen === s.unreachAttrLen && withdrawnLen === 0 && attrsEnd === end) return { paths, endOfRib: afi };
    const bytes = familyBytes(afi, safi);
    if (bytes > 0) readPrefixes(buf, nlriStart, nlriEnd, bytes, (prefix) => paths.push({ neighbor, prefix, attrs: undefined }));
  }
  if (attrsEnd < end) {
    const attrs = remembered(memo, s.attrs(s.nextHop));
    readPrefixes(buf, attrsEnd, end, 4, (prefix) => paths.push({ neighbor, prefix, attrs }));
  }
  if (s.reach !== undefined) {
    const [afi, safi, nhStart, nhLen, nlriStart, nlriEnd] = s.reach;
    const bytes = familyBytes(afi, safi);
    if (bytes > 0) {
      const attrs = remembered(memo, s.attrs(mpNextHop(buf, nhStart, nhLen)));
      readPrefixes(buf, nlriStart, nlriEnd, bytes, (prefix) => paths.push({ neighbor, prefix, attrs }));
    }
  }
  return { paths };
}

/** MP_REACH's next hop: IPv4, IPv6, or IPv6 global + link-local (the global one is installed). */
function mpNextHop(buf: Buffer, at: number, len: number): string {
  if (len === 4) return ipv4Text(buf, at);
  if (len === 16 || len === 32) return ipv6Text(buf, at);
  return "";
}

interface Scan {
  nextHop: string;
  reach?: [afi: number, safi: number, nhStart: number, nhLen: number, nlriStart: number, nlriEnd: number];
  unreach?: [afi: number, safi: number, nlriStart: number, nlriEnd: number];
  /** The whole MP_UNREACH attribute's length with its header (an End-of-RIB has nothing else). */
  unreachAttrLen: number;
  /** The UPDATE's attributes with this next hop (one object per next hop, shared by its prefixes). */
  attrs(nextHop: string): PathAttrs;
}

function scanAttrs(buf: Buffer, start: number, end: number, twoByteAs: boolean): Scan {
  const a: PathAttrs = { nextHop: "", localPref: undefined, asns: [], asPathLen: 0, origin: 0, med: MISSING_MED, communities: [] };
  const scan: Scan = { nextHop: "", unreachAttrLen: 0, attrs: () => a };
  let as4: [number, number] | undefined;
  let at = start;
  while (at < end) {
    const flags = buf[at]!;
    const type = buf[at + 1]!;
    const extended = (flags & 0x10) !== 0;
    const len = extended ? buf.readUInt16BE(at + 2) : buf[at + 2]!;
    const v = at + (extended ? 4 : 3);
    const next = v + len;
    if (next > end) throw new BgpDecodeError(`path attribute ${type} exceeds the attributes`);
    switch (type) {
      case ORIGIN:
        a.origin = buf[v]!;
        break;
      case AS_PATH:
        readAsPath(buf, v, next, twoByteAs ? 2 : 4, a);
        break;
      case AS4_PATH:
        as4 = [v, next];
        break;
      case NEXT_HOP:
        scan.nextHop = len === 4 ? ipv4Text(buf, v) : "";
        break;
      case MED:
        a.med = buf.readUInt32BE(v);
        break;
      case LOCAL_PREF:
        a.localPref = buf.readUInt32BE(v);
        break;
      case COMMUNITIES:
        for (let i = v; i + 4 <= next; i += 4) a.communities.push(buf.readUInt32BE(i));
        break;
      case MP_REACH: {
        const nhLen = buf[v + 3]!;
        const nlri = v + 4 + nhLen + 1; // the reserved octet
        scan.reach = [buf.readUInt16BE(v), buf[v + 2]!, v + 4, nhLen, nlri, next];
        break;
      }
      case MP_UNREACH:
        scan.unreach = [buf.readUInt16BE(v), buf[v + 2]!, v + 3, next];
        scan.unreachAttrLen = next - at;
        break;
    }
    at = next;
  }
  if (twoByteAs && as4 !== undefined) mergeAs4(buf, as4[0], as4[1], a);
  // One attribute object per next hop: the IPv4 NLRI and an MP_REACH in the same UPDATE may differ.
  const byHop = new Map<string, PathAttrs>();
  scan.attrs = (nextHop) => {
    let x = byHop.get(nextHop);
    if (x === undefined) byHop.set(nextHop, (x = byHop.size === 0 ? Object.assign(a, { nextHop }) : { ...a, nextHop }));
    return x;
  };
  return scan;
}

function readAsPath(buf: Buffer, start: number, end: number, width: 2 | 4, a: PathAttrs): void {
  for (let at = start; at + 2 <= end; ) {
    const type = buf[at]!;
    const count = buf[at + 1]!;
    at += 2;
    for (let i = 0; i < count && at + width <= end; i++, at += width) a.asns.push(width === 4 ? buf.readUInt32BE(at) : buf.readUInt16BE(at));
    // As gobgp/attrs.ts counts GoBGP's segments: a sequence by its length, a set as one, confederations not.
    if (type === AS_SEQUENCE) a.asPathLen += count;
    else if (type === AS_SET) a.asPathLen += 1;
  }
}

/** RFC 6793 4.2.3: the leading AS_PATH numbers the AS4_PATH does not cover, then the AS4_PATH. */
function mergeAs4(buf: Buffer, start: number, end: number, a: PathAttrs): void {
  const four: PathAttrs = { ...a, asns: [], asPathLen: 0 };
  readAsPath(buf, start, end, 4, four);
  if (four.asns.length > a.asns.length) return; // malformed: AS4_PATH is ignored
  const keep = a.asns.length - four.asns.length;
  a.asns = [...a.asns.slice(0, keep), ...four.asns];
  // (The leading numbers counted as an AS_SEQUENCE, as they are from a 2-byte speaker in practice.)
  a.asPathLen = keep + four.asPathLen;
}

/** Prefixes in NLRI encoding (length in bits, then the significant bytes), `bytes` the family's address length. */
function readPrefixes(buf: Buffer, start: number, end: number, bytes: number, out: (prefix: string) => void): void {
  for (let at = start; at < end; ) {
    const len = buf[at]!;
    const n = (len + 7) >> 3;
    if (len > bytes * 8 || at + 1 + n > end) throw new BgpDecodeError(`NLRI /${len} exceeds its family or the attribute`);
    out(prefixText(buf, at + 1, n, bytes, len));
    at += 1 + n;
  }
}
