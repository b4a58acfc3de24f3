// DNSSEC record data (RFC 4034, RFC 5155) parsed from the expanded wire form, plus the pieces of the
// algorithms that are plain arithmetic: key tags, type bitmaps, NSEC3 hashing and base32hex.
import { createHash } from "node:crypto";
import { WireError } from "../wire/errors.js";
import { readName, type Name } from "../wire/name.js";

export interface Rrsig {
  typeCovered: number;
  algorithm: number;
  labels: number;
  originalTtl: number;
  expiration: number;
  inception: number;
  keyTag: number;
  signer: Name;
  signature: Buffer;
  /** The data up to (not including) the signature: what is signed before the RRset. */
  signedPart: Buffer;
}

export interface Dnskey {
  flags: number;
  protocol: number;
  algorithm: number;
  publicKey: Buffer;
  /** The whole data, for key tags and DS digests. */
  data: Buffer;
  keyTag: number;
}

export interface Ds {
  keyTag: number;
  algorithm: number;
  digestType: number;
  digest: Buffer;
}

export interface Nsec {
  next: Name;
  types: Set<number>;
}

export interface Nsec3 {
  hashAlgorithm: number;
  flags: number;
  iterations: number;
  salt: Buffer;
  /** The next hashed owner name, raw bytes. */
  next: Buffer;
  types: Set<number>;
}

export const DNSKEY_ZONE = 0x0100;
export const DNSKEY_SEP = 0x0001;
export const NSEC3_OPT_OUT = 0x01;

const need = (data: Buffer, n: number, what: string): void => {
  if (data.length < n) throw new WireError(`${what} data too short`);
};

export function parseRrsig(data: Buffer): Rrsig {
  need(data, 19, "RRSIG");
  const [signer, end] = readName(data, 18);
  return {
    typeCovered: data.readUInt16BE(0),
    algorithm: data[2]!,
    labels: data[3]!,
    originalTtl: data.readUInt32BE(4),
    expiration: data.readUInt32BE(8),
    inception: data.readUInt32BE(12),
    keyTag: data.readUInt16BE(16),
    signer,
    signature: data.subarray(end),
    signedPart: data.subarray(0, end),
  };
}

/** RFC 4034 Appendix B (algorithm 1 is obsolete and not supported). */
export function keyTag(data: Buffer): number {
  let ac = 0;
  for (let i = 0; i < data.length; i++) ac += i & 1 ? data[i]! : data[i]! << 8;
  ac += (ac >>> 16) & 0xffff;
  return ac & 0xffff;
}

export function parseDnskey(data: Buffer): Dnskey {
  need(data, 4, "DNSKEY");
  return { flags: data.readUInt16BE(0), protocol: data[2]!, algorithm: data[3]!, publicKey: data.subarray(4), data, keyTag: keyTag(data) };
}

export function parseDs(data: Buffer): Ds {
  need(data, 5, "DS");
  return { keyTag: data.readUInt16BE(0), algorithm: data[2]!, digestType: data[3]!, digest: data.subarray(4) };
}

/** RFC 4034 §4.1.2 type bitmap. */
export function parseTypeBitmap(data: Buffer, off: number): Set<number> {
  const out = new Set<number>();
  let pos = off;
  while (pos < data.length) {
    if (pos + 2 > data.length) throw new WireError("type bitmap window runs past its record");
    const window = data[pos]!;
    const len = data[pos + 1]!;
    if (len < 1 || len > 32 || pos + 2 + len > data.length) throw new WireError("bad type bitmap window length");
    for (let i = 0; i < len; i++) {
      const byte = data[pos + 2 + i]!;
      for (let bit = 0; bit < 8; bit++) if (byte & (0x80 >> bit)) out.add(window * 256 + i * 8 + bit);
    }
    pos += 2 + len;
  }
  return out;
}

export function encodeTypeBitmap(types: Iterable<number>): Buffer {
  const windows = new Map<number, number[]>();
  for (const t of types) {
    const w = t >> 8;
    const bits = windows.get(w) ?? new Array<number>(32).fill(0);
    bits[(t & 0xff) >> 3]! |= 0x80 >> (t & 7);
    windows.set(w, bits);
  }
  const parts: Buffer[] = [];
  for (const w of [...windows.keys()].sort((a, b) => a - b)) {
    const bits = windows.get(w)!;
    let len = 32;
    while (len > 1 && bits[len - 1] === 0) len--;
    parts.push(Buffer.from([w, len, ...bits.slice(0, len)]));
  }
  return Buffer.concat(parts);
}

export function parseNsec(data: Buffer): Nsec {
  const [next, end] = readName(data, 0);
  return { next, types: parseTypeBitmap(data, end) };
}

export function parseNsec3(data: Buffer): Nsec3 {
  need(data, 5, "NSEC3");
  const saltLen = data[4]!;
  need(data, 6 + saltLen, "NSEC3");
  const hashLen = data[5 + saltLen]!;
  const hashAt = 6 + saltLen;
  need(data, hashAt + hashLen, "NSEC3");
  return {
    hashAlgorithm: data[0]!,
    flags: data[1]!,
    iterations: data.readUInt16BE(2),
    salt: data.subarray(5, 5 + saltLen),
    next: data.subarray(hashAt, hashAt + hashLen),
    types: parseTypeBitmap(data, hashAt + hashLen),
  };
}

/** RFC 5155 §5: IH(salt, x, k), SHA-1 over the lower-cased wire name. */
export function nsec3Hash(name: Name, salt: Buffer, iterations: number): Buffer {
  const lower = Buffer.from(name);
  for (let i = 0; i < lower.length; i++) if (lower[i]! >= 0x41 && lower[i]! <= 0x5a) lower[i]! |= 0x20;
  let h = createHash("sha1").update(lower).update(salt).digest();
  for (let i = 0; i < iterations; i++) h = createHash("sha1").update(h).update(salt).digest();
  return h;
}

const B32HEX = "0123456789abcdefghijklmnopqrstuv";

export function base32hexEncode(data: Buffer): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const b of data) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += B32HEX[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32HEX[(value << (5 - bits)) & 31];
  return out;
}

export function base32hexDecode(text: string): Buffer | undefined {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const c of text.toLowerCase()) {
    const v = B32HEX.indexOf(c);
    if (v < 0) return undefined;
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** Serial number arithmetic (RFC 1982) for signature validity: a is before or at b. */
export function serialLte(a: number, b: number): boolean {
  return a === b || ((b - a) >>> 0) < 0x80000000;
}
