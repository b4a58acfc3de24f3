// Bounds-checked byte reading/writing, IPv6 address text forms and DNS wire-format names.
// Readers throw DecodeError only; codec.ts turns it into a result, so malformed input never escapes as a crash.

export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DecodeError";
  }
}

export class ByteReader {
  private pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  private need(n: number, what: string): void {
    if (this.remaining < n) throw new DecodeError(`truncated ${what}: need ${n} bytes, have ${this.remaining}`);
  }

  u8(what = "u8"): number {
    this.need(1, what);
    return this.buf[this.pos++]!;
  }

  u16(what = "u16"): number {
    this.need(2, what);
    const v = (this.buf[this.pos]! << 8) | this.buf[this.pos + 1]!;
    this.pos += 2;
    return v;
  }

  u24(what = "u24"): number {
    this.need(3, what);
    const v = (this.buf[this.pos]! << 16) | (this.buf[this.pos + 1]! << 8) | this.buf[this.pos + 2]!;
    this.pos += 3;
    return v;
  }

  u32(what = "u32"): number {
    this.need(4, what);
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return ((b[p]! << 24) >>> 0) + ((b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!);
  }

  bytes(n: number, what = "bytes"): Uint8Array {
    this.need(n, what);
    const out = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  rest(): Uint8Array {
    return this.bytes(this.remaining);
  }
}

export class ByteWriter {
  private chunks: number[] = [];

  u8(v: number): this {
    this.chunks.push(v & 0xff);
    return this;
  }

  u16(v: number): this {
    this.chunks.push((v >>> 8) & 0xff, v & 0xff);
    return this;
  }

  u24(v: number): this {
    this.chunks.push((v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
    return this;
  }

  u32(v: number): this {
    this.chunks.push((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
    return this;
  }

  bytes(b: Uint8Array): this {
    for (const x of b) this.chunks.push(x);
    return this;
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.chunks);
  }
}

/** Parses an IPv6 address (with optional embedded IPv4 tail) into 16 bytes; undefined when invalid. */
export function parseIpv6(text: string): Uint8Array | undefined {
  const s = text.includes("%") ? text.slice(0, text.indexOf("%")) : text;
  if (s.length === 0 || s.length > 45) return undefined;
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === "") return [];
    const out: number[] = [];
    const items = part.split(":");
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (i === items.length - 1 && item.includes(".")) {
        const v4 = item.split(".").map((x) => (/^\d{1,3}$/.test(x) ? Number(x) : NaN));
        if (v4.length !== 4 || v4.some((x) => !(x >= 0 && x <= 255))) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(item)) return undefined;
        out.push(Number.parseInt(item, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    out[i * 2] = g >>> 8;
    out[i * 2 + 1] = g & 0xff;
  });
  return out;
}

/** RFC 5952 text form: lower case, longest run (≥2) of zero groups compressed to "::". */
export function formatIpv6(b: Uint8Array): string {
  const g: number[] = [];
  for (let i = 0; i < 16; i += 2) g.push(((b[i] ?? 0) << 8) | (b[i + 1] ?? 0));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (xs: number[]): string => xs.map((x) => x.toString(16)).join(":");
  if (bestStart < 0) return hex(g);
  return `${hex(g.slice(0, bestStart))}::${hex(g.slice(bestStart + bestLen))}`;
}

/** Clears the bits after `length` (so 2001:db8:1:2::/48 becomes 2001:db8:1::/48). */
export function maskPrefix(addr: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    const bits = Math.max(0, Math.min(8, length - i * 8));
    out[i] = (addr[i] ?? 0) & ((0xff << (8 - bits)) & 0xff);
  }
  return out;
}

const MAX_NAME = 255;
const LABEL = /^[A-Za-z0-9_-]+$/;

/** Reads uncompressed DNS wire-format names (RFC 8415 §10) until the buffer ends. */
export function decodeDomainNames(buf: Uint8Array): string[] {
  const names: string[] = [];
  let labels: string[] = [];
  let nameLen = 0;
  let i = 0;
  while (i < buf.length) {
    const len = buf[i]!;
    if (len > 63) throw new DecodeError(`label length ${len} is not allowed (compression is not allowed here)`);
    i += 1;
    nameLen += len + 1;
    if (nameLen > MAX_NAME) throw new DecodeError("domain name longer than 255 bytes");
    if (len === 0) {
      names.push(labels.join("."));
      labels = [];
      nameLen = 0;
      continue;
    }
    if (i + len > buf.length) throw new DecodeError("domain label runs past the option end");
    const label = Buffer.from(buf.subarray(i, i + len)).toString("latin1");
    // Only host-name characters: these names end up in resolver and tunnel configs.
    if (!LABEL.test(label)) throw new DecodeError(`domain label ${JSON.stringify(label)} has characters other than letters, digits, '-' and '_'`);
    labels.push(label);
    i += len;
  }
  if (labels.length > 0) throw new DecodeError("domain name without terminating root label");
  return names;
}

export function encodeDomainName(name: string, w: ByteWriter): void {
  const trimmed = name.endsWith(".") ? name.slice(0, -1) : name;
  if (trimmed.length > 0) {
    for (const label of trimmed.split(".")) {
      const bytes = Buffer.from(label, "latin1");
      if (bytes.length === 0 || bytes.length > 63) throw new RangeError(`invalid DNS label in ${JSON.stringify(name)}`);
      w.u8(bytes.length).bytes(bytes);
    }
  }
  w.u8(0);
}

export function toHex(b: Uint8Array, sep = ""): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(sep);
}

/** Accepts "0001000a..." or "00:01:00:0a:..."; undefined when not hex. */
export function fromHex(text: string): Uint8Array | undefined {
  const clean = text.trim().replace(/[:\s-]/g, "");
  if (clean.length === 0 || clean.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(clean)) return undefined;
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function bytesEqual(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
