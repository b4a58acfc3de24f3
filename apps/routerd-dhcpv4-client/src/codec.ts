// BOOTP/DHCP message codec (RFC 2131 §2, RFC 2132 §9.3 overload). decodeMessage never throws: every
// malformed input becomes { ok: false, error }.
import { readIpv4, ipv4Bytes, ZERO_ADDRESS } from "./ipv4.js";
import { Opt, encodeOptions, joinFragments, parseOptionArea, readU8, type OptionMap } from "./options.js";

export const BOOTREQUEST = 1;
export const BOOTREPLY = 2;
export const HTYPE_ETHERNET = 1;
export const FLAG_BROADCAST = 0x8000;
export const MAGIC_COOKIE = 0x63825363;
/** RFC 1542 §2.1: some relays and servers drop BOOTP messages shorter than this. */
export const MIN_MESSAGE_SIZE = 300;

const FIXED_SIZE = 236;
const OPTIONS_OFFSET = FIXED_SIZE + 4;
const SNAME = { offset: 44, length: 64 };
const FILE = { offset: 108, length: 128 };

export interface DhcpMessage {
  op: number;
  htype: number;
  hlen: number;
  hops: number;
  xid: number;
  secs: number;
  flags: number;
  ciaddr: string;
  yiaddr: string;
  siaddr: string;
  giaddr: string;
  /** The first `hlen` bytes of chaddr. */
  chaddr: Uint8Array;
  /** Empty when the field carries overloaded options. */
  sname: string;
  file: string;
  options: OptionMap;
}

export type DecodeResult = { ok: true; message: DhcpMessage } | { ok: false; error: string };

function u16(buf: Uint8Array, off: number): number {
  return ((buf[off] as number) << 8) | (buf[off + 1] as number);
}

function u32(buf: Uint8Array, off: number): number {
  return (((buf[off] as number) << 24) | ((buf[off + 1] as number) << 16) | ((buf[off + 2] as number) << 8) | (buf[off + 3] as number)) >>> 0;
}

function cString(buf: Uint8Array, off: number, len: number): string {
  const field = buf.subarray(off, off + len);
  const nul = field.indexOf(0);
  return Buffer.from(nul === -1 ? field : field.subarray(0, nul)).toString("latin1");
}

export function decodeMessage(buf: Uint8Array): DecodeResult {
  if (buf.length < OPTIONS_OFFSET) return { ok: false, error: `message too short (${buf.length} bytes)` };
  if (u32(buf, FIXED_SIZE) !== MAGIC_COOKIE) return { ok: false, error: "bad magic cookie" };
  const hlen = buf[2] as number;
  if (hlen > 16) return { ok: false, error: `hardware address length ${hlen} > 16` };

  const fragments = new Map<number, Uint8Array[]>();
  const main = parseOptionArea(buf, OPTIONS_OFFSET, buf.length, fragments);
  if (!main.ok) return { ok: false, error: main.error };
  // Overload is only meaningful in the options field itself (RFC 2132 §9.3).
  const overloadParts = fragments.get(Opt.Overload);
  let overload = 0;
  if (overloadParts) {
    const v = overloadParts[0] as Uint8Array;
    if (overloadParts.length !== 1 || v.length !== 1 || (v[0] as number) < 1 || (v[0] as number) > 3) {
      return { ok: false, error: "invalid option overload (52)" };
    }
    overload = v[0] as number;
    fragments.delete(Opt.Overload);
  }
  // Order per RFC 3396 §5: options field, then file, then sname.
  if (overload & 1) {
    const r = parseOptionArea(buf, FILE.offset, FILE.offset + FILE.length, fragments);
    if (!r.ok) return { ok: false, error: `in overloaded file field: ${r.error}` };
  }
  if (overload & 2) {
    const r = parseOptionArea(buf, SNAME.offset, SNAME.offset + SNAME.length, fragments);
    if (!r.ok) return { ok: false, error: `in overloaded sname field: ${r.error}` };
  }
  fragments.delete(Opt.Overload);

  return {
    ok: true,
    message: {
      op: buf[0] as number,
      htype: buf[1] as number,
      hlen,
      hops: buf[3] as number,
      xid: u32(buf, 4),
      secs: u16(buf, 8),
      flags: u16(buf, 10),
      ciaddr: readIpv4(buf, 12),
      yiaddr: readIpv4(buf, 16),
      siaddr: readIpv4(buf, 20),
      giaddr: readIpv4(buf, 24),
      chaddr: Uint8Array.from(buf.subarray(28, 28 + hlen)),
      sname: overload & 2 ? "" : cString(buf, SNAME.offset, SNAME.length),
      file: overload & 1 ? "" : cString(buf, FILE.offset, FILE.length),
      options: joinFragments(fragments),
    },
  };
}

export interface OutgoingMessage {
  op?: number;
  xid: number;
  secs?: number;
  flags?: number;
  ciaddr?: string;
  yiaddr?: string;
  siaddr?: string;
  giaddr?: string;
  chaddr: Uint8Array;
  sname?: string;
  file?: string;
  /** Encoded in this order; message type should come first. */
  options: ReadonlyArray<readonly [number, Uint8Array]>;
}

/** Encodes a message (never overloaded: what a client sends is small), padded to 300 bytes. */
export function encodeMessage(msg: OutgoingMessage): Buffer {
  if (msg.chaddr.length > 16) throw new RangeError("chaddr longer than 16 bytes");
  const opts = encodeOptions(msg.options);
  const buf = Buffer.alloc(Math.max(MIN_MESSAGE_SIZE, OPTIONS_OFFSET + opts.length));
  buf[0] = msg.op ?? BOOTREQUEST;
  buf[1] = HTYPE_ETHERNET;
  buf[2] = msg.chaddr.length;
  buf[3] = 0;
  buf.writeUInt32BE(msg.xid >>> 0, 4);
  buf.writeUInt16BE(Math.min(msg.secs ?? 0, 0xffff), 8);
  buf.writeUInt16BE(msg.flags ?? 0, 10);
  buf.set(ipv4Bytes(msg.ciaddr ?? ZERO_ADDRESS), 12);
  buf.set(ipv4Bytes(msg.yiaddr ?? ZERO_ADDRESS), 16);
  buf.set(ipv4Bytes(msg.siaddr ?? ZERO_ADDRESS), 20);
  buf.set(ipv4Bytes(msg.giaddr ?? ZERO_ADDRESS), 24);
  buf.set(msg.chaddr, 28);
  if (msg.sname) buf.write(msg.sname.slice(0, SNAME.length - 1), SNAME.offset, "latin1");
  if (msg.file) buf.write(msg.file.slice(0, FILE.length - 1), FILE.offset, "latin1");
  buf.writeUInt32BE(MAGIC_COOKIE, FIXED_SIZE);
  buf.set(opts, OPTIONS_OFFSET);
  return buf;
}

export function messageTypeOf(msg: DhcpMessage): number | undefined {
  return readU8(msg.options, Opt.MessageType);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export type ReplyCheck = { ok: true; type: number } | { ok: false; reason: string };

/** Is this a server reply meant for us: BOOTREPLY, Ethernet, our xid and hardware address, a message type. */
export function checkReply(msg: DhcpMessage, xid: number, mac: Uint8Array): ReplyCheck {
  if (msg.op !== BOOTREPLY) return { ok: false, reason: "not a BOOTREPLY" };
  if (msg.htype !== HTYPE_ETHERNET || msg.hlen !== mac.length) return { ok: false, reason: "not an Ethernet reply" };
  if (msg.xid !== xid >>> 0) return { ok: false, reason: "xid mismatch" };
  if (!sameBytes(msg.chaddr, mac)) return { ok: false, reason: "chaddr mismatch" };
  const type = messageTypeOf(msg);
  if (type === undefined) return { ok: false, reason: "no DHCP message type" };
  return { ok: true, type };
}
