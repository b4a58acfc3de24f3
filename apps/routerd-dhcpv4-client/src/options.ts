// DHCP options (RFC 2132, RFC 3396 long options, RFC 3442 classless routes): the code table, the
// option-area parser and encoder, and typed readers. Nothing here throws on input from the wire.
import { numberToIpv4, readIpv4, ipv4Bytes } from "./ipv4.js";

export const Opt = {
  Pad: 0,
  SubnetMask: 1,
  Router: 3,
  DnsServers: 6,
  HostName: 12,
  DomainName: 15,
  InterfaceMtu: 26,
  BroadcastAddress: 28,
  NtpServers: 42,
  RequestedAddress: 50,
  LeaseTime: 51,
  Overload: 52,
  MessageType: 53,
  ServerId: 54,
  ParameterRequestList: 55,
  Message: 56,
  MaxMessageSize: 57,
  RenewalTime: 58,
  RebindingTime: 59,
  VendorClass: 60,
  ClientId: 61,
  ClasslessRoutes: 121,
  End: 255,
} as const;

export const MessageType = {
  Discover: 1,
  Offer: 2,
  Request: 3,
  Decline: 4,
  Ack: 5,
  Nak: 6,
  Release: 7,
  Inform: 8,
} as const;
export type MessageTypeCode = (typeof MessageType)[keyof typeof MessageType];

const MESSAGE_TYPE_NAMES: Record<number, string> = {
  1: "DISCOVER",
  2: "OFFER",
  3: "REQUEST",
  4: "DECLINE",
  5: "ACK",
  6: "NAK",
  7: "RELEASE",
  8: "INFORM",
};

export function messageTypeName(code: number | undefined): string {
  return code === undefined ? "none" : (MESSAGE_TYPE_NAMES[code] ?? `type-${code}`);
}

/** Decoded options: one entry per code, RFC 3396 fragments already concatenated. */
export type OptionMap = Map<number, Uint8Array>;

export type AreaResult = { ok: true } | { ok: false; error: string };

/**
 * Parses one option area (the options field, or `file`/`sname` when overloaded) into `into`.
 * A missing End is tolerated; an option whose length runs past the area is not.
 */
export function parseOptionArea(buf: Uint8Array, start: number, end: number, into: Map<number, Uint8Array[]>): AreaResult {
  let i = start;
  while (i < end) {
    const code = buf[i] as number;
    if (code === Opt.Pad) {
      i += 1;
      continue;
    }
    if (code === Opt.End) return { ok: true };
    if (i + 1 >= end) return { ok: false, error: `option ${code} truncated before its length` };
    const len = buf[i + 1] as number;
    const valueStart = i + 2;
    if (valueStart + len > end) return { ok: false, error: `option ${code} length ${len} overflows the option area` };
    const parts = into.get(code);
    const value = buf.subarray(valueStart, valueStart + len);
    if (parts) parts.push(value);
    else into.set(code, [value]);
    i = valueStart + len;
  }
  return { ok: true };
}

/** Options with one fixed size: they never need RFC 3396 splitting, so repeats are duplicates. */
const FIXED_SIZE: Readonly<Record<number, number>> = {
  [Opt.SubnetMask]: 4,
  [Opt.InterfaceMtu]: 2,
  [Opt.BroadcastAddress]: 4,
  [Opt.RequestedAddress]: 4,
  [Opt.LeaseTime]: 4,
  [Opt.Overload]: 1,
  [Opt.MessageType]: 1,
  [Opt.ServerId]: 4,
  [Opt.MaxMessageSize]: 2,
  [Opt.RenewalTime]: 4,
  [Opt.RebindingTime]: 4,
};

/**
 * RFC 3396: several instances of one option are one value, concatenated in order. Exception: repeated
 * whole instances of a fixed-size option are duplicates (dnsmasq sends option 51 twice when it is
 * also configured with dhcp-option=51); the first one counts, as in udhcpc.
 */
export function joinFragments(fragments: Map<number, Uint8Array[]>): OptionMap {
  const out: OptionMap = new Map();
  for (const [code, parts] of fragments) {
    const size = FIXED_SIZE[code];
    const first = parts[0] as Uint8Array;
    if (parts.length === 1 || (size !== undefined && parts.every((p) => p.length === size))) out.set(code, first);
    else out.set(code, Buffer.concat(parts));
  }
  return out;
}

/** Encodes options in the given order, splitting values over 255 bytes (RFC 3396), then End. */
export function encodeOptions(options: ReadonlyArray<readonly [number, Uint8Array]>): Buffer {
  const chunks: Uint8Array[] = [];
  for (const [code, value] of options) {
    if (code === Opt.Pad || code === Opt.End) continue;
    if (value.length === 0) {
      chunks.push(Uint8Array.of(code, 0));
      continue;
    }
    for (let off = 0; off < value.length; off += 255) {
      const part = value.subarray(off, Math.min(off + 255, value.length));
      chunks.push(Uint8Array.of(code, part.length), part);
    }
  }
  chunks.push(Uint8Array.of(Opt.End));
  return Buffer.concat(chunks);
}

// ---- typed readers: each returns undefined when the option is absent or malformed ----

export function readU8(options: OptionMap, code: number): number | undefined {
  const v = options.get(code);
  return v && v.length === 1 ? (v[0] as number) : undefined;
}

export function readU16(options: OptionMap, code: number): number | undefined {
  const v = options.get(code);
  return v && v.length === 2 ? (((v[0] as number) << 8) | (v[1] as number)) : undefined;
}

export function readU32(options: OptionMap, code: number): number | undefined {
  const v = options.get(code);
  if (!v || v.length !== 4) return undefined;
  return (((v[0] as number) << 24) | ((v[1] as number) << 16) | ((v[2] as number) << 8) | (v[3] as number)) >>> 0;
}

export function readAddress(options: OptionMap, code: number): string | undefined {
  const v = options.get(code);
  return v && v.length === 4 ? readIpv4(v, 0) : undefined;
}

export function readAddressList(options: OptionMap, code: number): string[] | undefined {
  const v = options.get(code);
  if (!v || v.length === 0 || v.length % 4 !== 0) return undefined;
  const out: string[] = [];
  for (let i = 0; i < v.length; i += 4) out.push(readIpv4(v, i));
  return out;
}

/** NVT ASCII text; trailing NULs (some servers send C strings) are dropped, other controls refused. */
export function readText(options: OptionMap, code: number): string | undefined {
  const v = options.get(code);
  if (!v || v.length === 0) return undefined;
  let end = v.length;
  while (end > 0 && v[end - 1] === 0) end -= 1;
  if (end === 0) return undefined;
  for (let i = 0; i < end; i++) {
    const c = v[i] as number;
    if (c < 0x20 || c > 0x7e) return undefined;
  }
  return Buffer.from(v.subarray(0, end)).toString("latin1");
}

export interface ClasslessRoute {
  destination: string;
  prefixLength: number;
  gateway: string;
}

/** RFC 3442 option 121. A malformed option is ignored as a whole (undefined), never partly used. */
export function decodeClasslessRoutes(v: Uint8Array): ClasslessRoute[] | undefined {
  const routes: ClasslessRoute[] = [];
  let i = 0;
  while (i < v.length) {
    const width = v[i] as number;
    if (width > 32) return undefined;
    const significant = Math.ceil(width / 8);
    if (i + 1 + significant + 4 > v.length) return undefined;
    let dest = 0;
    for (let b = 0; b < significant; b++) dest |= (v[i + 1 + b] as number) << (24 - 8 * b);
    // Bits past the prefix must be ignored (RFC 3442 §2); mask them so routes are canonical.
    const mask = width === 0 ? 0 : (0xffffffff << (32 - width)) >>> 0;
    routes.push({
      destination: numberToIpv4((dest & mask) >>> 0),
      prefixLength: width,
      gateway: readIpv4(v, i + 1 + significant),
    });
    i += 1 + significant + 4;
  }
  return routes.length > 0 ? routes : undefined;
}

export function encodeClasslessRoutes(routes: ReadonlyArray<ClasslessRoute>): Uint8Array {
  const parts: number[] = [];
  for (const r of routes) {
    const dest = ipv4Bytes(r.destination);
    parts.push(r.prefixLength, ...dest.subarray(0, Math.ceil(r.prefixLength / 8)), ...ipv4Bytes(r.gateway));
  }
  return Uint8Array.from(parts);
}

export function readClasslessRoutes(options: OptionMap): ClasslessRoute[] | undefined {
  const v = options.get(Opt.ClasslessRoutes);
  return v ? decodeClasslessRoutes(v) : undefined;
}

// ---- encoders for the values a client sends ----

export function u8(n: number): Uint8Array {
  return Uint8Array.of(n & 255);
}

export function u16(n: number): Uint8Array {
  return Uint8Array.of((n >>> 8) & 255, n & 255);
}

export function u32(n: number): Uint8Array {
  return Uint8Array.of((n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255);
}

export function text(s: string): Uint8Array {
  return Buffer.from(s, "latin1");
}
