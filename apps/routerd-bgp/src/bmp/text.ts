// Addresses and prefixes from wire bytes as GoBGP prints them (Go's net.IP String: dotted IPv4; IPv6
// lower-case hex, the longest run of two or more zero groups as "::", the first of equal runs), each one
// flat string: the RIB and the FIB keep them as keys, so no concatenated (cons) string per prefix.
import { compressedZeroRun } from "@routerd/api";

/** Where the text is assembled (an IPv6 prefix is at most 43 characters). */
const TEXT = Buffer.alloc(64);
const HEX = "0123456789abcdef";
const ZERO = 0x30;

function putDecimal(at: number, v: number): number {
  if (v >= 100) TEXT[at++] = ZERO + Math.floor(v / 100);
  if (v >= 10) TEXT[at++] = ZERO + (Math.floor(v / 10) % 10);
  TEXT[at++] = ZERO + (v % 10);
  return at;
}

function putHex(at: number, v: number): number {
  let started = false;
  for (let shift = 12; shift >= 0; shift -= 4) {
    const d = (v >> shift) & 15;
    if (d === 0 && !started && shift > 0) continue;
    started = true;
    TEXT[at++] = HEX.charCodeAt(d);
  }
  return at;
}

/** `bytes` of an address (the rest are zero) into TEXT; its end. */
function putAddress(buf: Buffer, start: number, n: number, width: number): number {
  const byte = (i: number) => (i < n ? buf[start + i]! : 0);
  let at = 0;
  if (width === 4) {
    for (let i = 0; i < 4; i++) {
      if (i > 0) TEXT[at++] = 0x2e; // "."
      at = putDecimal(at, byte(i));
    }
    return at;
  }
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((byte(i) << 8) | byte(i + 1));
  const { at: runStart, len: runLen } = compressedZeroRun(groups);
  for (let i = 0; i < 8; i++) {
    if (i === runStart) {
      TEXT[at++] = 0x3a;
      TEXT[at++] = 0x3a;
      i += runLen - 1;
      continue;
    }
    if (i > 0 && i !== runStart + runLen) TEXT[at++] = 0x3a; // ":"
    at = putHex(at, groups[i]!);
  }
  return at;
}

export const ipv4Text = (buf: Buffer, at: number): string => TEXT.toString("latin1", 0, putAddress(buf, at, 4, 4));
export const ipv6Text = (buf: Buffer, at: number): string => TEXT.toString("latin1", 0, putAddress(buf, at, 16, 16));

/** A prefix from NLRI: n significant bytes at `start` of a `width`-byte address, `len` bits: "address/len". */
export function prefixText(buf: Buffer, start: number, n: number, width: number, len: number): string {
  let at = putAddress(buf, start, n, width);
  TEXT[at++] = 0x2f; // "/"
  at = putDecimal(at, len);
  return TEXT.toString("latin1", 0, at);
}
