// IPv6 values for the IPv6 kinds: parsing, canonical text (RFC 5952, as iproute2 prints it), and the LAN
// address derived from a delegated prefix. Pure; 128-bit values are bigints.
import { isIPv6 } from "node:net";
import { t } from "../schema.js";

const ALL = (1n << 128n) - 1n;
const LOW64 = (1n << 64n) - 1n;

export function parseIpv6(text: string): bigint | undefined {
  if (!isIPv6(text) || text.includes("%")) return undefined;
  let s = text.toLowerCase();
  // An embedded IPv4 tail (::ffff:192.0.2.1) becomes two hex groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    s = `${s.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.includes("::") ? (s.split("::") as [string, string]) : [s, undefined];
  const h = head ? head.split(":") : [];
  const tl = tail === undefined ? [] : tail ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - tl.length).fill("0"), ...tl];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
}

/**
 * The run of zero groups RFC 5952 writes as "::": the longest of two or more (the first on a tie), or
 * `{ at: -1, len: 0 }` when there is none. Shared with routerd-bgp's wire-byte formatter (bmp/text.ts).
 */
export function compressedZeroRun(groups: ArrayLike<number>): { at: number; len: number } {
  let best = { at: -1, len: 0 };
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === 0) j++;
    if (j - i > best.len && j - i >= 2) best = { at: i, len: j - i };
    i = j;
  }
  return best;
}

/** RFC 5952 text: lower case, the longest run of two or more zero groups (the first on a tie) as "::". */
export function formatIpv6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  const best = compressedZeroRun(groups);
  const hex = groups.map((g) => g.toString(16));
  if (best.at < 0) return hex.join(":");
  return `${hex.slice(0, best.at).join(":")}::${hex.slice(best.at + best.len).join(":")}`;
}

export interface Ipv6Prefix {
  prefix: string;
  length: number;
}

export function parseIpv6Prefix(text: string): Ipv6Prefix | undefined {
  const m = /^([0-9a-fA-F:.]+)\/(\d{1,3})$/.exec(text);
  if (!m) return undefined;
  const value = parseIpv6(m[1]!);
  const length = Number(m[2]);
  if (value === undefined || length > 128) return undefined;
  return { prefix: formatIpv6(value), length };
}

export function hostBits(p: Ipv6Prefix): bigint {
  const mask = p.length === 0 ? 0n : (ALL << BigInt(128 - p.length)) & ALL;
  return parseIpv6(p.prefix)! & ~mask & ALL;
}

/** Subnet IDs that fit between a delegated prefix of `length` and a /64. */
export function subnetCount(length: number): bigint {
  return length > 64 ? 0n : 1n << BigInt(64 - length);
}

/** As the original parses a subnet ID: an integer, a decimal string, "0x" hex, then bare hex ("1f"). */
export function parseSubnetId(v: number | string): bigint {
  if (typeof v === "number") return BigInt(v);
  if (/^\d+$/.test(v)) return BigInt(v);
  return BigInt(v.startsWith("0x") || v.startsWith("0X") ? v : `0x${v}`);
}

/** The interface identifier (low 64 bits) of a suffix such as "::1"; undefined when it has upper bits. */
export function suffixValue(suffix: string): bigint | undefined {
  const v = parseIpv6(suffix);
  return v === undefined || v > LOW64 ? undefined : v;
}

export type DerivedAddress = { ok: true; address: string; network: string } | { ok: false; reason: string };

/** <delegated prefix> + subnet ID → a /64, + interface identifier → the LAN address. */
export function deriveLanAddress(delegated: Ipv6Prefix, subnetId: bigint, suffix: string): DerivedAddress {
  if (delegated.length > 64) return { ok: false, reason: `a /${delegated.length} is longer than /64: no /64 can be numbered from it` };
  if (subnetId < 0n || subnetId >= subnetCount(delegated.length)) {
    return { ok: false, reason: `subnet ID ${subnetId} does not fit in the ${64 - delegated.length} bits of a /${delegated.length}` };
  }
  const iid = suffixValue(suffix);
  if (iid === undefined || iid === 0n) return { ok: false, reason: `address suffix ${suffix} is not a non-zero interface identifier` };
  const base = parseIpv6(delegated.prefix)! & ~(LOW64 | ((1n << BigInt(128 - delegated.length)) - 1n)) & ALL;
  const network = base | (subnetId << 64n);
  return { ok: true, address: formatIpv6(network | iid), network: formatIpv6(network) };
}

export const ipv6Formats = {
  /** A prefix such as 2001:db8:1000::/56 (host bits zero). */
  prefix: () =>
    t.string({
      check: (v) => {
        const p = parseIpv6Prefix(v);
        if (!p) return `${JSON.stringify(v)} is not an IPv6 prefix like 2001:db8:1000::/56`;
        return hostBits(p) === 0n ? undefined : `${v} has host bits set`;
      },
    }),
  /** An interface identifier written as an IPv6 address with only the low 64 bits set, e.g. ::1. */
  suffix: () =>
    t.string({
      check: (v) => {
        const s = suffixValue(v);
        if (s === undefined) return `${JSON.stringify(v)} is not an interface identifier like ::1 (an IPv6 address with only the low 64 bits set)`;
        return s === 0n ? "the all-zero identifier is the subnet-router anycast address" : undefined;
      },
    }),
  /** A subnet number: an integer, or a string: decimal ("10"), "0x" hex ("0x1f"), then bare hex ("1f"). */
  subnetId: () =>
    t.union<number | string>(
      "an integer, or a string: decimal like \"1\", hex like \"0x1f\" or \"1f\"",
      t.int({ min: 0, max: 2 ** 32 - 1 }),
      t.string({ pattern: /^(0[xX])?[0-9a-fA-F]{1,16}$/ }),
    ),
};
