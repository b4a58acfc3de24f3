// The byte layout shared with native/udp-batch.c (keep the two in step): how a receive slot carries a batch
// of datagrams with their sources, and how a send batch carries answers with their destinations. Pure
// functions over Buffers, so the packing is unit-tested without the addon.
//
// A receive slot: BATCH records of META bytes, then BATCH payload areas of PKT bytes (packet i at
// RECV_DATA + i * PKT). A send batch: SEND_MAX records of META bytes, then the payloads, packed.
// Record (little-endian):
//   0 u16 length      2 u16 port       4 u8 family (4 | 6)   5 u8 flags (receive: FLAG_TRUNCATED)
//   6 u16 ref (send: the receive record whose source the answer goes to, REF_NONE = the address here)
//   8 u32 IPv6 scope id   12 16 bytes address (IPv4: the first 4)   28 u32 payload offset (send)
import { ipv4Bytes, ipv6Bytes, ipv6Text } from "../../zones/record-text.js";

export const SLOTS = 4;
export const BATCH = 32;
export const PKT = 4096;
export const META = 32;
export const SEND_MAX = 64;
export const REF_NONE = 0xffff;
export const FLAG_TRUNCATED = 1;
export const RECV_DATA = BATCH * META;
export const SLOT_BYTES = RECV_DATA + BATCH * PKT;
export const SEND_DATA = SEND_MAX * META;

const LEN = 0;
const PORT = 2;
const FAMILY = 4;
const FLAGS = 5;
const REF = 6;
const SCOPE = 8;
const ADDR = 12;
const DATA_OFFSET = 28;

export function packetLength(slot: Buffer, i: number): number {
  return slot.readUInt16LE(i * META + LEN);
}

export function packetTruncated(slot: Buffer, i: number): boolean {
  return (slot[i * META + FLAGS]! & FLAG_TRUNCATED) !== 0;
}

/** Packet i's payload (a view: valid until the batch has been answered). */
export function packetView(slot: Buffer, i: number): Buffer {
  const start = RECV_DATA + i * PKT;
  return slot.subarray(start, start + packetLength(slot, i));
}

export function peerPort(slot: Buffer, i: number): number {
  return slot.readUInt16LE(i * META + PORT);
}

const V4_TEXT_LIMIT = 4096;

/**
 * Source addresses as text, the way node:dgram reports them (an IPv6 scope as "%<index>"). A LAN has few
 * clients, so IPv4 texts are kept by their 32-bit value and most packets build no string.
 */
export class PeerText {
  private readonly v4 = new Map<number, string>();

  of(slot: Buffer, i: number): string {
    const m = i * META;
    if (slot[m + FAMILY] === 4) {
      const value = slot.readUInt32BE(m + ADDR);
      let text = this.v4.get(value);
      if (text === undefined) {
        text = `${value >>> 24}.${(value >>> 16) & 0xff}.${(value >>> 8) & 0xff}.${value & 0xff}`;
        if (this.v4.size >= V4_TEXT_LIMIT) this.v4.clear();
        this.v4.set(value, text);
      }
      return text;
    }
    const scope = slot.readUInt32LE(m + SCOPE);
    const text = ipv6Text(slot.subarray(m + ADDR, m + ADDR + 16));
    return scope === 0 ? text : `${text}%${scope}`;
  }
}

/** Answers gathered for one sendmmsg call. */
export class SendBatch {
  readonly staging = Buffer.alloc(SEND_DATA + SEND_MAX * 1232 * 2);
  count = 0;
  private end = SEND_DATA;

  private room(len: number): boolean {
    return this.count < SEND_MAX && this.end + len <= this.staging.length;
  }

  private payload(out: Buffer): number {
    const m = this.count * META;
    out.copy(this.staging, this.end);
    this.staging.writeUInt16LE(out.length, m + LEN);
    this.staging.writeUInt32LE(this.end, m + DATA_OFFSET);
    this.end += out.length;
    this.count++;
    return m;
  }

  /** An answer to packet `ref` of the batch being answered; false when full (send, reset, add again). */
  addReply(out: Buffer, ref: number): boolean {
    if (!this.room(out.length)) return false;
    const m = this.payload(out);
    this.staging.writeUInt16LE(ref, m + REF);
    return true;
  }

  /** An answer to an address given as text (answers that finish later); false when full. */
  addTo(out: Buffer, address: string, port: number): boolean {
    if (!this.room(out.length)) return false;
    const m = this.payload(out);
    this.staging.writeUInt16LE(REF_NONE, m + REF);
    writePeer(this.staging, m, address, port);
    return true;
  }

  reset(): void {
    this.count = 0;
    this.end = SEND_DATA;
  }
}

/** The native send()'s result: datagrams sent, and the errno of the last refused one (0: none). */
export function sendResult(word: number): { sent: number; errno: number } {
  return { sent: word & 0xffff, errno: word >>> 16 };
}

/** Writes an address given as text ("192.0.2.1", "2001:db8::1", "fe80::1%2") and port into record `m`. */
export function writePeer(buf: Buffer, m: number, address: string, port: number): void {
  buf.writeUInt16LE(port, m + PORT);
  buf.fill(0, m + SCOPE, m + ADDR + 16);
  const pct = address.indexOf("%");
  if (pct < 0 && !address.includes(":")) {
    buf[m + FAMILY] = 4;
    ipv4Bytes(address).copy(buf, m + ADDR);
    return;
  }
  buf[m + FAMILY] = 6;
  ipv6Bytes(pct < 0 ? address : address.slice(0, pct)).copy(buf, m + ADDR);
  const scope = pct < 0 ? 0 : Number(address.slice(pct + 1));
  buf.writeUInt32LE(Number.isInteger(scope) && scope > 0 ? scope : 0, m + SCOPE);
}

/** Record i's address as text, port and family (what the addon sends to, or received from). */
export function readPeer(buf: Buffer, i: number, texts = new PeerText()): { address: string; port: number; family: number } {
  return { address: texts.of(buf, i), port: buf.readUInt16LE(i * META + PORT), family: buf[i * META + FAMILY]! };
}

/** Send record i: its payload, and the receive record it answers (or REF_NONE). */
export function readSendRecord(buf: Buffer, i: number): { payload: Buffer; ref: number } {
  const m = i * META;
  const off = buf.readUInt32LE(m + DATA_OFFSET);
  return { payload: buf.subarray(off, off + buf.readUInt16LE(m + LEN)), ref: buf.readUInt16LE(m + REF) };
}

/** Writes receive record i as the worker thread does (tests). */
export function writeReceived(slot: Buffer, i: number, payload: Buffer, address: string, port: number, truncated = false): void {
  const m = i * META;
  slot.fill(0, m, m + META);
  const len = Math.min(payload.length, PKT);
  payload.copy(slot, RECV_DATA + i * PKT, 0, len);
  slot.writeUInt16LE(len, m + LEN);
  slot[m + FLAGS] = truncated ? FLAG_TRUNCATED : 0;
  writePeer(slot, m, address, port);
}
