// BMP (RFC 7854) messages from a byte stream, decoded to what routerd-bgp uses of them: Initiation and
// Termination, Peer Up (with the address families of the OPEN the router sent: one End-of-RIB each ends
// GoBGP's initial dump), Peer Down, and Route Monitoring with its BGP UPDATE (update.ts). Statistics,
// Route Mirroring and post-policy or Loc-RIB monitoring are skipped. Pure: bytes in, events out.
import type { AdjInPath } from "../rib/attrs.js";
import { ipv4Text, ipv6Text } from "./text.js";
import { AFI_IPV4, BGP_HEADER, decodeUpdate, type AttrMemo } from "./update.js";

export const BMP_VERSION = 3;
const COMMON_HEADER = 6;
const PEER_HEADER = 42;

const ROUTE_MONITORING = 0;
const PEER_DOWN = 2;
const PEER_UP = 3;
const INITIATION = 4;
const TERMINATION = 5;

const FLAG_V6 = 0x80;
const FLAG_POST_POLICY = 0x40;
const FLAG_TWO_BYTE_AS = 0x20;
/** Peer types 0 (global) and 1 (RD instance): a neighbor's Adj-RIB-In. */
const MAX_PEER_TYPE = 1;

export type BmpEvent =
  | { type: "initiation" }
  | { type: "termination" }
  | { type: "peer-up"; neighbor: string; families: number[] }
  | { type: "peer-down"; neighbor: string }
  | { type: "route"; neighbor: string; paths: AdjInPath[]; endOfRib: number | undefined };

export class BmpDecodeError extends Error {}

/** The neighbor of a per-peer header at `at`, or undefined for one routerd-bgp does not monitor. */
function peerOf(buf: Buffer, at: number): { neighbor: string; twoByteAs: boolean } | undefined {
  const flags = buf[at + 1]!;
  if (buf[at]! > MAX_PEER_TYPE || (flags & FLAG_POST_POLICY) !== 0) return undefined;
  const neighbor = (flags & FLAG_V6) !== 0 ? ipv6Text(buf, at + 10) : ipv4Text(buf, at + 22);
  return { neighbor, twoByteAs: (flags & FLAG_TWO_BYTE_AS) !== 0 };
}

/** The AFIs of the multiprotocol capabilities in an OPEN message (none: IPv4 unicast, RFC 4760 8). */
export function openFamilies(buf: Buffer, start: number, end: number): number[] {
  const afis: number[] = [];
  const optLen = buf[start + BGP_HEADER + 9]!;
  let at = start + BGP_HEADER + 10;
  const optEnd = Math.min(at + optLen, end);
  while (at + 2 <= optEnd) {
    const [type, len] = [buf[at]!, buf[at + 1]!];
    if (type === 2) {
      for (let c = at + 2; c + 2 <= at + 2 + len; c += 2 + buf[c + 1]!) {
        if (buf[c] === 1 && buf[c + 1]! >= 4) afis.push(buf.readUInt16BE(c + 2));
      }
    }
    at += 2 + len;
  }
  return afis.length > 0 ? afis : [AFI_IPV4];
}

/** One BMP message at [start, end) (its common header included); memo: the stream's last attributes (update.ts). */
export function decodeBmp(buf: Buffer, start: number, end: number, memo?: AttrMemo): BmpEvent | undefined {
  if (buf[start] !== BMP_VERSION) throw new BmpDecodeError(`BMP version ${buf[start]}, expected ${BMP_VERSION}`);
  const type = buf[start + 5]!;
  if (type === INITIATION) return { type: "initiation" };
  if (type === TERMINATION) return { type: "termination" };
  if (type !== ROUTE_MONITORING && type !== PEER_UP && type !== PEER_DOWN) return undefined;
  const ph = start + COMMON_HEADER;
  const peer = peerOf(buf, ph);
  if (peer === undefined) return undefined;
  const body = ph + PEER_HEADER;
  if (type === PEER_DOWN) return { type: "peer-down", neighbor: peer.neighbor };
  if (type === PEER_UP) {
    // Local address (16), local and remote port (2 + 2), then the OPEN the router sent.
    const open = body + 20;
    const openEnd = open + buf.readUInt16BE(open + 16);
    return { type: "peer-up", neighbor: peer.neighbor, families: openFamilies(buf, open, Math.min(openEnd, end)) };
  }
  const msgEnd = body + buf.readUInt16BE(body + 16);
  if (msgEnd > end) throw new BmpDecodeError("BGP message exceeds its BMP message");
  const u = decodeUpdate(buf, body, msgEnd, peer.neighbor, peer.twoByteAs, memo);
  return { type: "route", neighbor: peer.neighbor, paths: u.paths, endOfRib: u.endOfRib };
}

/** Splits a TCP byte stream into BMP messages (a message may span reads; a read may hold many). */
export class BmpReader {
  private rest: Buffer | undefined;

  constructor(private readonly onMessage: (buf: Buffer, start: number, end: number) => void) {}

  push(chunk: Buffer): void {
    const buf = this.rest === undefined ? chunk : Buffer.concat([this.rest, chunk]);
    this.rest = undefined;
    let at = 0;
    while (buf.length - at >= COMMON_HEADER) {
      const len = buf.readUInt32BE(at + 1);
      if (len < COMMON_HEADER) throw new BmpDecodeError(`BMP message length ${len}`);
      if (buf.length - at < len) break;
      this.onMessage(buf, at, at + len);
      at += len;
    }
    // Copied: the tail must not keep the whole read alive.
    if (at < buf.length) this.rest = Buffer.from(buf.subarray(at));
  }
}
