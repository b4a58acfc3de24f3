// WatchEvent responses decoded straight from the wire bytes, for the Adj-RIB-In stream's full-table load:
// the generated decoder builds a Path object, an Any per attribute, a type URL string each and a family,
// age and uuid per prefix (about 1.5 kB of garbage per prefix, 150 MB for a 100k table) only for us to
// read four fields. Here a path costs its prefix string and an AdjInPath; an UPDATE's attributes (the same
// bytes for every prefix in it) are decoded once. Peer events are rare and go through the generated code.
// Field numbers from GoBGP's gobgp.proto (3.10): WatchEventResponse{peer=2, table=3}, TableEvent{paths=2},
// Path{nlri=1, pattrs=2, is_withdraw=5, neighbor_ip=15}, google.protobuf.Any{type_url=1, value=2}.
import { WatchEventResponse_PeerEvent } from "@routerd/gobgp-api/gen/gobgp";
import type { Any } from "@routerd/gobgp-api/gen/google/protobuf/any";
import type { AdjInPath } from "../rib/attrs.js";
import { TYPE_PREFIX, decodePathAttrs, mpReachNextHop, type PathAttrs } from "./attrs.js";

export type WatchEvent = { peer: WatchEventResponse_PeerEvent; paths?: undefined } | { peer?: undefined; paths: AdjInPath[] } | { peer?: undefined; paths?: undefined };

const LEN = 2;
const PREFIX_URL = Buffer.from(TYPE_PREFIX + "IPAddressPrefix");
const MP_REACH_URL = Buffer.from(TYPE_PREFIX + "MpReachNLRIAttribute");

/** A cursor over protobuf wire bytes (only what these messages use). */
class Wire {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }
  varint(): number {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = this.buf[this.pos++]!;
      if (shift < 28) v |= (b & 0x7f) << shift;
      else v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
      shift += 7;
    }
  }
  /** A length-delimited field: its [start, end) in buf. */
  span(): [number, number] {
    const len = this.varint();
    const start = this.pos;
    this.pos += len;
    return [start, this.pos];
  }
  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === LEN) this.span();
    else if (wireType === 5) this.pos += 4;
    else throw new Error(`protobuf wire type ${wireType} not expected in a WatchEvent`);
  }
}

const equalBytes = (buf: Buffer, [s, e]: [number, number], want: Buffer) => e - s === want.length && buf.compare(want, 0, want.length, s, e) === 0;

/** An Any's type URL and value spans. */
function anySpans(buf: Buffer, [start, end]: [number, number]): { url: [number, number]; value: [number, number] } {
  const w = new Wire(buf, start, end);
  let url: [number, number] = [start, start];
  let value: [number, number] = [start, start];
  while (w.pos < w.end) {
    const tag = w.varint();
    if (tag === 10) url = w.span();
    else if (tag === 18) value = w.span();
    else w.skip(tag & 7);
  }
  return { url, value };
}

/** Decodes one WatchEventResponse. */
export function decodeWatchEvent(buf: Buffer): WatchEvent {
  const w = new Wire(buf);
  while (w.pos < w.end) {
    const tag = w.varint();
    if (tag === 18) {
      const [s, e] = w.span();
      return { peer: WatchEventResponse_PeerEvent.decode(buf.subarray(s, e)) };
    }
    if (tag === 26) return { paths: tablePaths(buf, w.span()) };
    w.skip(tag & 7);
  }
  return {};
}

/** Decoding state shared by the paths of one event: the previous path's attributes (bytes and decoded). */
interface Shared {
  neighbor: string;
  neighborBytes: [number, number];
  attrBytes: [number, number][];
  attrs: PathAttrs | undefined;
}

function tablePaths(buf: Buffer, [start, end]: [number, number]): AdjInPath[] {
  const out: AdjInPath[] = [];
  const w = new Wire(buf, start, end);
  const shared: Shared = { neighbor: "", neighborBytes: [0, 0], attrBytes: [], attrs: undefined };
  while (w.pos < w.end) {
    const tag = w.varint();
    if (tag !== 18) {
      w.skip(tag & 7);
      continue;
    }
    const path = decodePath(buf, w.span(), shared);
    if (path !== undefined) out.push(path);
  }
  return out;
}

function decodePath(buf: Buffer, [start, end]: [number, number], shared: Shared): AdjInPath | undefined {
  const w = new Wire(buf, start, end);
  let nlri: [number, number] | undefined;
  const pattrs: [number, number][] = [];
  let withdraw = false;
  let neighbor: [number, number] = [start, start];
  while (w.pos < w.end) {
    const tag = w.varint();
    if (tag === 10) nlri = w.span();
    else if (tag === 18) pattrs.push(w.span());
    else if (tag === 40) withdraw = w.varint() !== 0;
    else if (tag === 122) neighbor = w.span();
    else w.skip(tag & 7);
  }
  if (nlri === undefined) return undefined;
  const n = anySpans(buf, nlri);
  if (!equalBytes(buf, n.url, PREFIX_URL)) return undefined;
  const prefix = prefixString(buf, n.value);
  const neighborIp = neighborOf(buf, neighbor, shared);
  if (withdraw) return { neighbor: neighborIp, prefix, attrs: undefined };
  return { neighbor: neighborIp, prefix, attrs: attrsOf(buf, pattrs, shared) };
}

/** Where prefixString assembles "address/length" (an IPv6 address is at most 45 characters). */
const PREFIX_TEXT = Buffer.alloc(64);

/**
 * An IPAddressPrefix{prefix_len=1, prefix=2} as "address/length": one flat string, kept as the RIB's and
 * the FIB's key — no message object, no Buffer view, no concatenated (cons) string per prefix.
 */
function prefixString(buf: Buffer, [start, end]: [number, number]): string {
  const w = new Wire(buf, start, end);
  let len = 0;
  let address: [number, number] = [start, start];
  while (w.pos < w.end) {
    const tag = w.varint();
    if (tag === 8) len = w.varint();
    else if (tag === 18) address = w.span();
    else w.skip(tag & 7);
  }
  const n = Math.min(address[1] - address[0], PREFIX_TEXT.length - 4);
  buf.copy(PREFIX_TEXT, 0, address[0], address[0] + n);
  let at = n;
  PREFIX_TEXT[at++] = 0x2f; // "/"
  if (len >= 100) PREFIX_TEXT[at++] = 0x30 + Math.floor(len / 100);
  if (len >= 10) PREFIX_TEXT[at++] = 0x30 + (Math.floor(len / 10) % 10);
  PREFIX_TEXT[at++] = 0x30 + (len % 10);
  return PREFIX_TEXT.toString("latin1", 0, at);
}

function neighborOf(buf: Buffer, span: [number, number], shared: Shared): string {
  const [s, e] = span;
  const [ps, pe] = shared.neighborBytes;
  if (e - s === pe - ps && buf.compare(buf, ps, pe, s, e) === 0) return shared.neighbor;
  shared.neighbor = buf.toString("utf8", s, e);
  shared.neighborBytes = span;
  return shared.neighbor;
}

/** The same attributes as the previous path's (byte for byte), apart from the IPv6 MP_REACH (it carries each path's own NLRI). */
function sameAttrs(buf: Buffer, a: [number, number][], b: [number, number][]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const [as, ae] = a[i]!;
    const [bs, be] = b[i]!;
    if (ae - as !== be - bs) {
      if (!isMpReach(buf, a[i]!) || !isMpReach(buf, b[i]!)) return false;
      continue;
    }
    if (buf.compare(buf, bs, be, as, ae) !== 0 && !(isMpReach(buf, a[i]!) && isMpReach(buf, b[i]!))) return false;
  }
  return true;
}

const isMpReach = (buf: Buffer, span: [number, number]) => equalBytes(buf, anySpans(buf, span).url, MP_REACH_URL);

function attrsOf(buf: Buffer, pattrs: [number, number][], shared: Shared): PathAttrs {
  if (shared.attrs !== undefined && sameAttrs(buf, pattrs, shared.attrBytes)) {
    // IPv6: the next hop sits in this path's own MP_REACH; usually the same as the previous path's.
    for (const span of pattrs) {
      const { url, value } = anySpans(buf, span);
      if (!equalBytes(buf, url, MP_REACH_URL)) continue;
      const nh = mpReachNextHop(buf.subarray(value[0], value[1]));
      if (nh !== shared.attrs.nextHop) return { ...shared.attrs, nextHop: nh };
    }
    return shared.attrs;
  }
  const anys: Any[] = pattrs.map((span) => {
    const { url, value } = anySpans(buf, span);
    return { typeUrl: buf.toString("utf8", url[0], url[1]), value: buf.subarray(value[0], value[1]) };
  });
  shared.attrs = decodePathAttrs(anys);
  shared.attrBytes = pattrs;
  return shared.attrs;
}
