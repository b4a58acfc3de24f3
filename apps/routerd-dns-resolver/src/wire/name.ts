// Domain names. A name is kept as its uncompressed wire form (length-prefixed labels ending with the root's
// zero byte) in a Buffer: exact for every byte a label may hold, comparable without parsing, and what the
// encoder writes. Keys for maps are the lower-cased wire form as a latin1 string (only ASCII folds, as DNS
// wants). Reading follows compression pointers only backwards, each jump before the previous one, so a
// pointer loop ends after at most one pass over the message.
import { MAX_LABEL_LENGTH, MAX_NAME_LENGTH } from "./constants.js";
import { WireError } from "./errors.js";

export type Name = Buffer;

export const ROOT: Name = Buffer.from([0]);

const scratch = Buffer.allocUnsafe(MAX_NAME_LENGTH + 1);

/** Reads a possibly compressed name at `off`; returns it and the offset after it in the message. */
export function readName(msg: Uint8Array, off: number): [Name, number] {
  let pos = off;
  let len = 0;
  let next = -1;
  let limit = off; // every pointer must go before this
  for (;;) {
    if (pos >= msg.length) throw new WireError("name runs past the end of the message");
    const b = msg[pos]!;
    if (b === 0) {
      scratch[len++] = 0;
      if (next < 0) next = pos + 1;
      break;
    }
    const kind = b & 0xc0;
    if (kind === 0xc0) {
      if (pos + 1 >= msg.length) throw new WireError("compression pointer runs past the end of the message");
      const target = ((b & 0x3f) << 8) | msg[pos + 1]!;
      if (target >= limit) throw new WireError("compression pointer does not point backwards");
      if (next < 0) next = pos + 2;
      limit = target;
      pos = target;
      continue;
    }
    if (kind !== 0) throw new WireError(`unsupported label type 0x${kind.toString(16)}`);
    if (len + b + 2 > MAX_NAME_LENGTH) throw new WireError("name longer than 255 bytes");
    if (pos + 1 + b > msg.length) throw new WireError("label runs past the end of the message");
    scratch[len++] = b;
    for (let i = 1; i <= b; i++) scratch[len++] = msg[pos + i]!;
    pos += b + 1;
  }
  return [Buffer.from(scratch.subarray(0, len)), next];
}

/** Checks an uncompressed name at `off` (the question's, say) and returns the offset after it. */
export function skipUncompressedName(msg: Uint8Array, off: number): number {
  let pos = off;
  for (;;) {
    if (pos >= msg.length) throw new WireError("name runs past the end of the message");
    const b = msg[pos]!;
    if (b === 0) return pos + 1;
    if (b > MAX_LABEL_LENGTH) throw new WireError("compressed or invalid label where none is allowed");
    pos += b + 1;
    if (pos - off + 1 > MAX_NAME_LENGTH) throw new WireError("name longer than 255 bytes");
  }
}

/** Skips a possibly compressed name without decoding it. */
export function skipName(msg: Uint8Array, off: number): number {
  let pos = off;
  for (;;) {
    if (pos >= msg.length) throw new WireError("name runs past the end of the message");
    const b = msg[pos]!;
    if (b === 0) return pos + 1;
    if ((b & 0xc0) === 0xc0) {
      if (pos + 1 >= msg.length) throw new WireError("compression pointer runs past the end of the message");
      return pos + 2;
    }
    if (b > MAX_LABEL_LENGTH) throw new WireError("invalid label type");
    pos += b + 1;
  }
}

const lowerByte = (b: number): number => (b >= 0x41 && b <= 0x5a ? b | 0x20 : b);

/** The name with ASCII letters lower-cased (label length bytes are below 0x40 and never change). */
export function lowerName(name: Name): Name {
  const out = Buffer.allocUnsafe(name.length);
  for (let i = 0; i < name.length; i++) out[i] = lowerByte(name[i]!);
  return out;
}

/** Map key: the lower-cased wire form as a latin1 string. */
export function nameKey(name: Name): string {
  for (let i = 0; i < name.length; i++) {
    const b = name[i]!;
    if (b >= 0x41 && b <= 0x5a) return lowerName(name).latin1Slice(0, name.length);
  }
  return name.latin1Slice(0, name.length);
}

export function nameEquals(a: Name, b: Name): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (lowerByte(a[i]!) !== lowerByte(b[i]!)) return false;
  return true;
}

/** Offsets where each label starts, the first label first; the root has none. */
export function labelOffsets(name: Name): number[] {
  const out: number[] = [];
  for (let pos = 0; name[pos]! !== 0; pos += name[pos]! + 1) out.push(pos);
  return out;
}

export function labelCount(name: Name): number {
  let n = 0;
  for (let pos = 0; name[pos]! !== 0; pos += name[pos]! + 1) n++;
  return n;
}

/** The name without its first `n` labels (a view into the same bytes). */
export function stripLabels(name: Name, n: number): Name {
  let pos = 0;
  for (let i = 0; i < n && name[pos]! !== 0; i++) pos += name[pos]! + 1;
  return name.subarray(pos);
}

/** `name` is `zone` or below it. */
export function isSubdomain(name: Name, zone: Name): boolean {
  if (zone.length > name.length) return false;
  const start = name.length - zone.length;
  // The suffix must begin on a label boundary.
  let pos = 0;
  while (pos < start) pos += name[pos]! + 1;
  return pos === start && nameEquals(name.subarray(start), zone);
}

/** Keys of the name and each of its ancestors up to the root, longest first. */
export function suffixKeys(name: Name): string[] {
  const key = nameKey(name);
  const out: string[] = [];
  let pos = 0;
  for (;;) {
    out.push(key.slice(pos));
    const len = key.charCodeAt(pos);
    if (len === 0) return out;
    pos += len + 1;
  }
}

/** Prepends one label. */
export function childName(label: string | Uint8Array, parent: Name): Name {
  const bytes = typeof label === "string" ? Buffer.from(label, "latin1") : label;
  if (bytes.length === 0 || bytes.length > MAX_LABEL_LENGTH) throw new WireError(`label of ${bytes.length} bytes`);
  if (bytes.length + 1 + parent.length > MAX_NAME_LENGTH) throw new WireError("name longer than 255 bytes");
  return Buffer.concat([Buffer.from([bytes.length]), bytes, parent]);
}

const PLAIN = /^[A-Za-z0-9_*-]$/;

/** Presentation form with a trailing dot; "." and "\" escaped, other unprintable bytes as \DDD. */
export function nameToText(name: Name): string {
  if (name.length === 0 || name[0] === 0) return ".";
  let out = "";
  for (let pos = 0; name[pos]! !== 0; pos += name[pos]! + 1) {
    const len = name[pos]!;
    for (let i = pos + 1; i <= pos + len; i++) {
      const b = name[i]!;
      const c = String.fromCharCode(b);
      if (PLAIN.test(c)) out += c;
      else if (c === "." || c === "\\") out += `\\${c}`;
      else if (b > 0x20 && b < 0x7f) out += c;
      else out += `\\${b.toString().padStart(3, "0")}`;
    }
    out += ".";
  }
  return out;
}

/** Parses a presentation-form name ("www.example.com", trailing dot optional, \. and \DDD escapes). */
export function nameFromText(text: string): Name {
  if (text === "." || text === "") return ROOT;
  const bytes: number[] = [];
  let label: number[] = [];
  const endLabel = (): void => {
    if (label.length === 0) throw new WireError(`empty label in ${JSON.stringify(text)}`);
    if (label.length > MAX_LABEL_LENGTH) throw new WireError(`label longer than 63 bytes in ${JSON.stringify(text)}`);
    bytes.push(label.length, ...label);
    label = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") {
      const digits = /^\d{3}/.exec(text.slice(i + 1))?.[0];
      if (digits !== undefined) {
        const v = Number(digits);
        if (v > 255) throw new WireError(`bad escape \\${digits} in ${JSON.stringify(text)}`);
        label.push(v);
        i += 3;
      } else if (i + 1 < text.length) {
        label.push(text.charCodeAt(++i) & 0xff);
      } else {
        throw new WireError(`dangling backslash in ${JSON.stringify(text)}`);
      }
    } else if (c === ".") {
      endLabel();
    } else {
      const code = text.charCodeAt(i);
      if (code > 0xff) throw new WireError(`non-ASCII character in ${JSON.stringify(text)} (use its IDNA form)`);
      label.push(code);
    }
  }
  if (label.length > 0) endLabel();
  bytes.push(0);
  if (bytes.length > MAX_NAME_LENGTH) throw new WireError(`name longer than 255 bytes: ${JSON.stringify(text)}`);
  return Buffer.from(bytes);
}

/**
 * RFC 4034 §6.1 canonical order: compare label by label from the root, each label as lower-cased bytes.
 * Negative when a sorts before b.
 */
export function canonicalCompare(a: Name, b: Name): number {
  const la = labelOffsets(a);
  const lb = labelOffsets(b);
  for (let i = 1; i <= Math.min(la.length, lb.length); i++) {
    const pa = la[la.length - i]!;
    const pb = lb[lb.length - i]!;
    const na = a[pa]!;
    const nb = b[pb]!;
    for (let j = 1; j <= Math.min(na, nb); j++) {
      const d = lowerByte(a[pa + j]!) - lowerByte(b[pb + j]!);
      if (d !== 0) return d;
    }
    if (na !== nb) return na - nb;
  }
  return la.length - lb.length;
}
