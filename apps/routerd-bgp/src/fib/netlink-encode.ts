// A chunk of FIB writes as rtnetlink messages in one Buffer (pure): for each line lines.ts would give
// `ip`, the bytes `ip route replace|del` sends (iproute2 6.1, captured with strace: netlink-encode.test.ts)
// except NLM_F_ACK and the sequence number, which the addon sets per sendmsg (native/netlink-route.c).
// Host byte order is little-endian (native.ts refuses other hosts).
import type { FibTarget, NextHopKey } from "./lines.js";

export const NLMSG_HDRLEN = 16;
const RTMSG_LEN = 12;
export const NLMSG_NOOP = 1;
export const RTM_NEWROUTE = 24;
export const RTM_DELROUTE = 25;
export const NLM_F_REQUEST = 0x1;
export const NLM_F_ACK = 0x4;
export const NLM_F_REPLACE = 0x100;
export const NLM_F_CREATE = 0x400;
const RTA_DST = 1;
const RTA_GATEWAY = 5;
const RTA_PRIORITY = 6;
const RTA_MULTIPATH = 9;
const RTA_TABLE = 15;
const AF_INET = 2;
const AF_INET6 = 10;
const RT_SCOPE_UNIVERSE = 0;
const RT_SCOPE_NOWHERE = 255;
const RTN_UNICAST = 1;
/** rtm_table holds 8 bits; larger ids go in RTA_TABLE with rtm_table = RT_TABLE_UNSPEC (as ip does). */
const TABLE_IN_HEADER_MAX = 255;
const RTNH_LEN = 8;

/** An address as bytes into `out` at `off`; returns its length (4 or 16). Throws on anything else. */
export function writeAddress(text: string, out: Buffer, off: number): 4 | 16 {
  if (!text.includes(":")) {
    const parts = text.split(".");
    if (parts.length !== 4) throw new Error(`not an address: ${text}`);
    for (let i = 0; i < 4; i++) out[off + i] = octet(parts[i]!, text);
    return 4;
  }
  const halves = text.split("::");
  if (halves.length > 2) throw new Error(`not an address: ${text}`);
  const groups = (s: string) => (s === "" ? [] : s.split(":"));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  // An embedded IPv4 tail ("::ffff:192.0.2.1") is two groups.
  const last = (halves.length === 2 ? tail : head).at(-1);
  const v4 = last?.includes(".") === true;
  const words = [...head, ...tail].length + (v4 ? 1 : 0);
  if (halves.length === 1 ? words !== 8 : words > 7) throw new Error(`not an address: ${text}`);
  out.fill(0, off, off + 16);
  const put = (list: string[], at: number) => {
    list.forEach((g, i) => {
      if (v4 && g.includes(".")) return void writeAddress(g, out, at + i * 2);
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) throw new Error(`not an address: ${text}`);
      out.writeUInt16BE(parseInt(g, 16), at + i * 2);
    });
  };
  put(head, off);
  put(tail, off + 16 - (tail.length + (v4 ? 1 : 0)) * 2);
  return 16;
}

function octet(s: string, text: string): number {
  const n = s.length > 0 && s.length <= 3 && /^\d+$/.test(s) ? Number(s) : NaN;
  if (!(n <= 255)) throw new Error(`not an address: ${text}`);
  return n;
}

/** The messages of one chunk; message i is the chunk's write i. */
export class RouteMessages {
  private buf: Buffer;
  private len = 0;
  count = 0;

  // Every byte below `len` is written by the methods below, so the buffer need not be zeroed (a chunk of
  // one flap stays cheap); it doubles as a chunk grows (~100 bytes a route).
  constructor(initialBytes = 8 * 1024) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  /** RTM_NEWROUTE with NLM_F_CREATE|NLM_F_REPLACE: `route replace PREFIX proto P metric M table T via|nexthop ...`. */
  replace(prefix: string, hops: NextHopKey, t: FibTarget): void {
    const list = hops.split(","); // nextHopKey's form (lines.ts)
    // Header, then each attribute in ip's order: dst, priority, table, gateway or multipath.
    const at = this.begin(RTM_NEWROUTE, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE);
    try {
      const family = this.head(prefix, t, RT_SCOPE_UNIVERSE, RTN_UNICAST, t.metric);
      const alen = family === AF_INET ? 4 : 16;
      if (list.length === 1) this.address(RTA_GATEWAY, list[0]!, alen);
      else {
        const mp = this.attrStart(RTA_MULTIPATH);
        for (const hop of list) {
          const nh = this.reserve(RTNH_LEN);
          this.buf.fill(0, nh, nh + RTNH_LEN); // flags 0, hops (weight - 1) 0, ifindex 0: the kernel resolves the device
          this.address(RTA_GATEWAY, hop, alen);
          this.buf.writeUInt16LE(this.len - nh, nh);
        }
        this.attrEnd(mp);
      }
      this.end(at);
    } catch (err) {
      this.len = at; // nothing half-written stays
      throw err;
    }
  }

  /** RTM_DELROUTE: `route del PREFIX proto P metric M table T` (any next hops). */
  delete(prefix: string, t: FibTarget, metric = t.metric): void {
    const at = this.begin(RTM_DELROUTE, NLM_F_REQUEST);
    try {
      this.head(prefix, t, RT_SCOPE_NOWHERE, 0, metric);
      this.end(at);
    } catch (err) {
      this.len = at;
      throw err;
    }
  }

  /** A message the kernel skips without answering: stands in for a write that could not be encoded. */
  noop(): void {
    this.end(this.begin(NLMSG_NOOP, NLM_F_REQUEST));
  }

  /** The messages so far (a view of the buffer, valid until the next append). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }

  private begin(type: number, flags: number): number {
    const at = this.reserve(NLMSG_HDRLEN);
    this.buf.fill(0, at, at + NLMSG_HDRLEN);
    this.buf.writeUInt16LE(type, at + 4);
    this.buf.writeUInt16LE(flags, at + 6);
    return at;
  }

  private end(at: number): void {
    this.buf.writeUInt32LE(this.len - at, at);
    this.count++;
  }

  /** rtmsg, RTA_DST, RTA_PRIORITY and (ids > 255) RTA_TABLE; returns the family. */
  private head(prefix: string, t: FibTarget, scope: number, type: number, metric: number): number {
    const slash = prefix.indexOf("/");
    const addr = slash < 0 ? prefix : prefix.slice(0, slash);
    const family = addr.includes(":") ? AF_INET6 : AF_INET;
    const bits = slash < 0 ? (family === AF_INET ? 32 : 128) : Number(prefix.slice(slash + 1));
    if (!Number.isInteger(bits) || bits < 0 || bits > (family === AF_INET ? 32 : 128)) throw new Error(`not a prefix: ${prefix}`);
    const r = this.reserve(RTMSG_LEN);
    const big = t.table > TABLE_IN_HEADER_MAX;
    this.buf.fill(0, r, r + RTMSG_LEN);
    this.buf[r] = family;
    this.buf[r + 1] = bits;
    this.buf[r + 4] = big ? 0 : t.table;
    this.buf[r + 5] = t.protocol;
    this.buf[r + 6] = family === AF_INET6 ? RT_SCOPE_UNIVERSE : scope; // ip: IPv6 routes are always universe
    this.buf[r + 7] = type;
    this.address(RTA_DST, addr, family === AF_INET ? 4 : 16);
    this.u32(RTA_PRIORITY, metric);
    if (big) this.u32(RTA_TABLE, t.table);
    return family;
  }

  private address(type: number, text: string, want: 4 | 16): void {
    const a = this.attrStart(type);
    this.reserve(16);
    const n = writeAddress(text, this.buf, a + 4);
    // A next hop of the other family is what ip refuses too ("inet address is expected").
    if (n !== want) throw new Error(`${want === 4 ? "inet" : "inet6"} address is expected rather than "${text}"`);
    this.len = a + 4 + n;
    this.attrEnd(a);
  }

  private u32(type: number, value: number): void {
    const a = this.attrStart(type);
    const v = this.reserve(4);
    this.buf.writeUInt32LE(value >>> 0, v);
    this.attrEnd(a);
  }

  private attrStart(type: number): number {
    const a = this.reserve(4);
    this.buf.writeUInt16LE(type, a + 2);
    return a;
  }

  /** Every payload here (an address, a u32, rtnexthops) is a multiple of 4 bytes: no padding to add. */
  private attrEnd(a: number): void {
    this.buf.writeUInt16LE(this.len - a, a);
  }

  /** Room for `n` more bytes; returns where they start. */
  private reserve(n: number): number {
    if (this.len + n > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
      this.buf.copy(next, 0, 0, this.len);
      this.buf = next;
    }
    const at = this.len;
    this.len += n;
    return at;
  }
}
