// Network value formats used by kind schemas: parsing, canonical forms and their schemas.
import { isIPv4, isIPv6 } from "node:net";
import { t, StringSchema, IntSchema, UnionSchema } from "./schema.js";

export function ipv4ToInt(addr: string): number {
  return addr.split(".").reduce((acc, o) => acc * 256 + Number(o), 0);
}

export function intToIpv4(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");
}

export interface Ipv4Prefix {
  address: string;
  length: number;
}

export function parseIpv4Prefix(value: string): Ipv4Prefix | undefined {
  const m = /^([0-9.]+)\/(\d{1,2})$/.exec(value);
  if (!m || !isIPv4(m[1]!)) return undefined;
  const length = Number(m[2]);
  return length <= 32 ? { address: m[1]!, length } : undefined;
}

export function ipv4Network(p: Ipv4Prefix): string {
  const mask = p.length === 0 ? 0 : (0xffffffff << (32 - p.length)) >>> 0;
  return intToIpv4((ipv4ToInt(p.address) & mask) >>> 0);
}

export function ipv4InPrefix(addr: string, p: Ipv4Prefix): boolean {
  return ipv4Network({ address: addr, length: p.length }) === ipv4Network(p);
}

export function prefixesOverlap(a: Ipv4Prefix, b: Ipv4Prefix): boolean {
  const len = Math.min(a.length, b.length);
  return ipv4Network({ address: a.address, length: len }) === ipv4Network({ address: b.address, length: len });
}

const IFNAME = /^[A-Za-z0-9_][A-Za-z0-9_.:@-]{0,14}$/;
const HOSTNAME = /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const DURATION = /^(\d+)(ms|s|m|h)$/;
const MAC = /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i;
const SYSCTL_KEY = /^[a-z0-9_]+(\.[A-Za-z0-9_@:+-]+)+$/;

export function durationMs(value: string): number {
  const m = DURATION.exec(value);
  if (!m) throw new Error(`bad duration ${value}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as "ms" | "s" | "m" | "h"];
  return Number(m[1]) * unit;
}

export const formats = {
  ipv4: () =>
    t.string({ check: (v) => (isIPv4(v) ? undefined : `${JSON.stringify(v)} is not an IPv4 address`), format: "ipv4" }),
  ipv6: () =>
    t.string({ check: (v) => (isIPv6(v) ? undefined : `${JSON.stringify(v)} is not an IPv6 address`), format: "ipv6" }),
  ip: () =>
    t.string({ check: (v) => (isIPv4(v) || isIPv6(v) ? undefined : `${JSON.stringify(v)} is not an IP address`) }),
  /** A network prefix such as 10.0.0.0/8; host bits must be zero. `default` means 0.0.0.0/0. */
  ipv4Cidr: () =>
    t.string({
      check: (v) => {
        if (v === "default") return undefined;
        const p = parseIpv4Prefix(v);
        if (!p) return `${JSON.stringify(v)} is not an IPv4 prefix like 10.0.0.0/8`;
        const net = ipv4Network(p);
        return net === p.address ? undefined : `${v} has host bits set; the network is ${net}/${p.length}`;
      },
      normalize: (v) => (v === "default" ? "0.0.0.0/0" : v),
    }),
  /** An address with its prefix length, such as 192.0.2.1/24. */
  ipv4Interface: () =>
    t.string({
      check: (v) => (parseIpv4Prefix(v) ? undefined : `${JSON.stringify(v)} is not an IPv4 address with prefix length like 192.0.2.1/24`),
    }),
  ifname: () => t.string({ pattern: IFNAME, patternHint: "a Linux interface name (1-15 characters)" }),
  hostname: () => t.string({ pattern: HOSTNAME, patternHint: "a valid host name (RFC 1123)" }),
  mac: () => t.string({ pattern: MAC, patternHint: "a MAC address like 02:00:00:00:00:01", normalize: (v) => v.toLowerCase() }),
  duration: () => t.string({ pattern: DURATION, patternHint: "a duration like 500ms, 5s, 1m or 1h" }),
  sysctlKey: () => t.string({ pattern: SYSCTL_KEY, patternHint: "a sysctl key like net.ipv4.ip_forward" }),
  port: () => t.int({ min: 1, max: 65535 }),
  /** A port or an inclusive range "1000-2000" (as a string). */
  portOrRange: (): UnionSchema<number | string> =>
    t.union<number | string>(
      "a port (1-65535) or a range like \"1000-2000\"",
      t.int({ min: 1, max: 65535 }) as IntSchema,
      t.string({
        pattern: /^\d{1,5}-\d{1,5}$/,
        check: (v) => {
          const [a, b] = v.split("-").map(Number) as [number, number];
          return a >= 1 && b <= 65535 && a < b ? undefined : `${v} is not a valid ascending port range`;
        },
      }) as StringSchema,
    ),
  fwmark: () =>
    t.union<number | string>(
      "an integer or a hex string like 0x101",
      t.int({ min: 1, max: 0xffffffff }),
      t.string({ pattern: /^0x[0-9a-fA-F]{1,8}$/ }),
    ),
};

export function fwmarkValue(v: number | string): number {
  return typeof v === "number" ? v : Number.parseInt(v, 16);
}
