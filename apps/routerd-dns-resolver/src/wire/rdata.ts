// Record data layouts, for the types whose data holds domain names. A layout is what the decoder needs to
// expand compression pointers inside the data (RFC 3597 §4), the encoder to compress RFC 1035 types, and
// DNSSEC to build the canonical form (RFC 4034 §6.2 as corrected by RFC 6840 §5.1). Every other type's
// data is opaque bytes.
import { TYPE } from "./constants.js";
import { WireError } from "./errors.js";
import { lowerName, readName, type Name } from "./name.js";

/** A domain name; `compress` only for the RFC 1035 types, where compression in data is allowed. */
type NameField = { name: true; compress: boolean };
/** Fixed-size bytes, a length-prefixed character string, or everything left. */
type Field = NameField | number | "string" | "rest";

interface Layout {
  fields: readonly Field[];
  /** Names are lower-cased in the canonical form. */
  canonicalLower: boolean;
}

const cname: NameField = { name: true, compress: true };
const name: NameField = { name: true, compress: false };

const LAYOUTS = new Map<number, Layout>([
  [TYPE.NS, { fields: [cname], canonicalLower: true }],
  [TYPE.MD, { fields: [cname], canonicalLower: true }],
  [TYPE.MF, { fields: [cname], canonicalLower: true }],
  [TYPE.CNAME, { fields: [cname], canonicalLower: true }],
  [TYPE.SOA, { fields: [cname, cname, 20], canonicalLower: true }],
  [TYPE.MB, { fields: [cname], canonicalLower: true }],
  [TYPE.MG, { fields: [cname], canonicalLower: true }],
  [TYPE.MR, { fields: [cname], canonicalLower: true }],
  [TYPE.PTR, { fields: [cname], canonicalLower: true }],
  [TYPE.MINFO, { fields: [cname, cname], canonicalLower: true }],
  [TYPE.MX, { fields: [2, cname], canonicalLower: true }],
  [TYPE.RP, { fields: [name, name], canonicalLower: true }],
  [TYPE.AFSDB, { fields: [2, name], canonicalLower: true }],
  [TYPE.RT, { fields: [2, name], canonicalLower: true }],
  [TYPE.SIG, { fields: [18, name, "rest"], canonicalLower: true }],
  [TYPE.PX, { fields: [2, name, name], canonicalLower: true }],
  [TYPE.NXT, { fields: [name, "rest"], canonicalLower: true }],
  [TYPE.NAPTR, { fields: [4, "string", "string", "string", name], canonicalLower: true }],
  [TYPE.KX, { fields: [2, name], canonicalLower: true }],
  [TYPE.SRV, { fields: [6, name], canonicalLower: true }],
  [TYPE.DNAME, { fields: [name], canonicalLower: true }],
  [TYPE.RRSIG, { fields: [18, name, "rest"], canonicalLower: true }],
  [TYPE.NSEC, { fields: [name, "rest"], canonicalLower: false }],
]);

/** The type's data may be compressed by an encoder (only RFC 1035's types). */
export function hasCompressibleNames(type: number): boolean {
  const l = LAYOUTS.get(type);
  return l !== undefined && l.fields.some((f) => typeof f === "object" && f.compress);
}

/** Fixed sizes of types whose data has no names, checked on decode. */
const FIXED_SIZES = new Map<number, number>([
  [TYPE.A, 4],
  [TYPE.AAAA, 16],
]);

/**
 * Copies the data at msg[off, off+len) with every name expanded; throws WireError when the data does not
 * fit its type's layout.
 */
export function readRdata(msg: Uint8Array, off: number, len: number, type: number): Buffer {
  const end = off + len;
  if (end > msg.length) throw new WireError("record data runs past the end of the message");
  const fixed = FIXED_SIZES.get(type);
  if (fixed !== undefined && fixed !== len) throw new WireError(`${len}-byte data for a type that has ${fixed}`);
  const layout = LAYOUTS.get(type);
  if (layout === undefined) return Buffer.from(msg.subarray(off, end));
  const parts: Uint8Array[] = [];
  let pos = off;
  for (const f of layout.fields) {
    if (typeof f === "number") {
      if (pos + f > end) throw new WireError("record data shorter than its type needs");
      parts.push(msg.subarray(pos, pos + f));
      pos += f;
    } else if (f === "string") {
      if (pos >= end || pos + 1 + msg[pos]! > end) throw new WireError("character string runs past its record");
      parts.push(msg.subarray(pos, pos + 1 + msg[pos]!));
      pos += 1 + msg[pos]!;
    } else if (f === "rest") {
      parts.push(msg.subarray(pos, end));
      pos = end;
    } else {
      const [n, next] = readName(msg, pos);
      if (next > end) throw new WireError("name runs past its record");
      parts.push(n);
      pos = next;
    }
  }
  if (pos !== end) throw new WireError("record data longer than its type's fields");
  return Buffer.concat(parts);
}

export interface RdataNameSpan {
  offset: number;
  length: number;
  compress: boolean;
}

/** Where the names sit in expanded data (as readRdata returns it). */
export function rdataNames(type: number, data: Uint8Array): RdataNameSpan[] {
  const layout = LAYOUTS.get(type);
  if (layout === undefined) return [];
  const out: RdataNameSpan[] = [];
  let pos = 0;
  for (const f of layout.fields) {
    if (typeof f === "number") pos += f;
    else if (f === "string") pos += 1 + (data[pos] ?? 0);
    else if (f === "rest") break;
    else {
      const start = pos;
      while (pos < data.length && data[pos] !== 0) pos += data[pos]! + 1;
      pos++;
      out.push({ offset: start, length: pos - start, compress: f.compress });
    }
  }
  return out;
}

/** The canonical form of the data (RFC 4034 §6.2): names lower-cased for the listed types. */
export function canonicalRdata(type: number, data: Buffer): Buffer {
  const layout = LAYOUTS.get(type);
  if (layout === undefined || !layout.canonicalLower) return data;
  const out = Buffer.from(data);
  for (const span of rdataNames(type, data)) lowerName(data.subarray(span.offset, span.offset + span.length)).copy(out, span.offset);
  return out;
}

/** The first name in the data (CNAME/DNAME/PTR/NS target, MX exchange, ...). */
export function rdataFirstName(type: number, data: Buffer): Name | undefined {
  const span = rdataNames(type, data)[0];
  return span === undefined ? undefined : data.subarray(span.offset, span.offset + span.length);
}
