// Client networks: CIDRs parsed once into bytes and a prefix length; an address list is checked with a small
// memo, since a LAN has few clients and the check runs for every query.
import { isIP } from "node:net";
import { ipv4Bytes, ipv6Bytes } from "../zones/record-text.js";

export interface Cidr {
  bytes: Buffer;
  length: number;
}

export function parseCidr(text: string): Cidr | undefined {
  const [addr = "", len] = text.split("/");
  const family = isIP(addr);
  if (family === 0) return undefined;
  const bits = family === 4 ? 32 : 128;
  const length = len === undefined ? bits : Number(len);
  if (!Number.isInteger(length) || length < 0 || length > bits || (len !== undefined && !/^\d+$/.test(len))) return undefined;
  return { bytes: family === 4 ? ipv4Bytes(addr) : ipv6Bytes(addr), length };
}

function contains(c: Cidr, addr: Buffer): boolean {
  if (c.bytes.length !== addr.length) return false;
  const full = c.length >> 3;
  for (let i = 0; i < full; i++) if (c.bytes[i] !== addr[i]) return false;
  const rest = c.length & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (c.bytes[full]! & mask) === (addr[full]! & mask);
}

function addressBytes(address: string): Buffer | undefined {
  const family = isIP(address);
  if (family === 4) return ipv4Bytes(address);
  if (family !== 6) return undefined;
  const b = ipv6Bytes(address.split("%")[0]!);
  // An IPv4 client on a dual-stack socket arrives as ::ffff:a.b.c.d.
  if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return b.subarray(12);
  return b;
}

const MEMO_LIMIT = 4096;

/** Whether a client address is inside any of the networks; an empty list allows everyone. */
export class SourceFilter {
  private readonly cidrs: Cidr[];
  private readonly memo = new Map<string, boolean>();

  constructor(networks: readonly string[]) {
    this.cidrs = networks.map((n) => parseCidr(n)).filter((c): c is Cidr => c !== undefined);
  }

  allows(address: string): boolean {
    if (this.cidrs.length === 0) return true;
    const known = this.memo.get(address);
    if (known !== undefined) return known;
    const bytes = addressBytes(address);
    const ok = bytes !== undefined && this.cidrs.some((c) => contains(c, bytes));
    if (this.memo.size >= MEMO_LIMIT) this.memo.clear();
    this.memo.set(address, ok);
    return ok;
  }
}
