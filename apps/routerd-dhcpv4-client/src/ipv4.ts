// Dotted-quad IPv4 helpers shared by the codec, the lease model and the state machine.

const DOTTED = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export const ZERO_ADDRESS = "0.0.0.0";
export const BROADCAST_ADDRESS = "255.255.255.255";

/** Reads four bytes at `offset` as a dotted quad. The caller guarantees the bytes exist. */
export function readIpv4(buf: Uint8Array, offset: number): string {
  return `${buf[offset]}.${buf[offset + 1]}.${buf[offset + 2]}.${buf[offset + 3]}`;
}

/** Parses a dotted quad; returns undefined for anything else (no octal, no short forms). */
export function parseIpv4(text: string): Uint8Array | undefined {
  const m = DOTTED.exec(text);
  if (!m) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = m[i + 1] as string;
    if (part.length > 1 && part.startsWith("0")) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

export function isIpv4(text: string): boolean {
  return parseIpv4(text) !== undefined;
}

/** Like parseIpv4 but throws; for addresses our own code produced or already validated. */
export function ipv4Bytes(text: string): Uint8Array {
  const bytes = parseIpv4(text);
  if (!bytes) throw new TypeError(`not an IPv4 address: ${JSON.stringify(text)}`);
  return bytes;
}

export function ipv4ToNumber(text: string): number {
  const b = ipv4Bytes(text);
  return (((b[0] as number) << 24) | ((b[1] as number) << 16) | ((b[2] as number) << 8) | (b[3] as number)) >>> 0;
}

export function numberToIpv4(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** Prefix length of a contiguous netmask, or undefined when the mask has holes. */
export function maskToPrefix(mask: string): number | undefined {
  const n = ipv4ToNumber(mask);
  const inverted = ~n >>> 0;
  // A contiguous mask's inverse is 2^k - 1.
  if ((inverted & (inverted + 1)) !== 0) return undefined;
  return 32 - Math.log2(inverted + 1);
}

export function prefixToMask(prefix: number): string {
  return numberToIpv4(prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0);
}

/** RFC 2131 leaves the mask optional; fall back to the historical class of the address. */
export function classfulMask(address: string): string {
  const first = ipv4ToNumber(address) >>> 24;
  if (first < 128) return "255.0.0.0";
  if (first < 192) return "255.255.0.0";
  return "255.255.255.0";
}

export function networkAddress(address: string, prefix: number): string {
  return numberToIpv4((ipv4ToNumber(address) & ipv4ToNumber(prefixToMask(prefix))) >>> 0);
}
