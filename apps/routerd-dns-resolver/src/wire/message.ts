// Whole messages: decode (with every check a hostile sender calls for) and encode (with name compression,
// a size limit that truncates to the question and sets TC, and the offsets of every TTL so a cache can
// patch them later without re-encoding).
import { EDNS_DO, FLAG, OPCODE_MASK, RCODE_MASK, TYPE } from "./constants.js";
import { WireError } from "./errors.js";
import { nameKey, readName, skipUncompressedName, type Name } from "./name.js";
import { hasCompressibleNames, rdataNames, readRdata } from "./rdata.js";

export interface Question {
  name: Name;
  type: number;
  class: number;
}

export interface ResourceRecord {
  name: Name;
  type: number;
  class: number;
  ttl: number;
  /** Data with every name expanded (no compression pointers). */
  data: Buffer;
}

export interface EdnsOption {
  code: number;
  data: Buffer;
}

export interface Edns {
  udpSize: number;
  version: number;
  /** EDNS flags word; EDNS_DO is the DNSSEC OK bit. */
  flags: number;
  options: EdnsOption[];
}

export interface Message {
  id: number;
  /** Header flags without the rcode bits. */
  flags: number;
  /** Full rcode: the header's 4 bits plus EDNS's upper 8. */
  rcode: number;
  questions: Question[];
  answers: ResourceRecord[];
  authorities: ResourceRecord[];
  /** Additional records other than OPT. */
  additionals: ResourceRecord[];
  edns?: Edns;
}

/** Counts beyond this are not a DNS message anyone needs answered. */
const MAX_RECORDS = 4096;

function readRecords(buf: Buffer, pos: number, count: number, out: ResourceRecord[], opt: { edns?: Edns; extRcode: number } | undefined): number {
  for (let i = 0; i < count; i++) {
    const [name, next] = readName(buf, pos);
    if (next + 10 > buf.length) throw new WireError("record header runs past the end of the message");
    const type = buf.readUInt16BE(next);
    const cls = buf.readUInt16BE(next + 2);
    const ttl = buf.readUInt32BE(next + 4);
    const rdlen = buf.readUInt16BE(next + 8);
    const dataOff = next + 10;
    if (dataOff + rdlen > buf.length) throw new WireError("record data runs past the end of the message");
    if (type === TYPE.OPT) {
      if (opt === undefined) throw new WireError("OPT record outside the additional section");
      if (opt.edns !== undefined) throw new WireError("more than one OPT record");
      if (name.length !== 1) throw new WireError("OPT record with a name other than the root");
      opt.edns = { udpSize: cls, version: (ttl >>> 16) & 0xff, flags: ttl & 0xffff, options: readOptions(buf, dataOff, rdlen) };
      opt.extRcode = ttl >>> 24;
    } else {
      out.push({ name, type, class: cls, ttl, data: readRdata(buf, dataOff, rdlen, type) });
    }
    pos = dataOff + rdlen;
  }
  return pos;
}

function readOptions(buf: Buffer, off: number, len: number): EdnsOption[] {
  const out: EdnsOption[] = [];
  const end = off + len;
  let pos = off;
  while (pos < end) {
    if (pos + 4 > end) throw new WireError("EDNS option header runs past its record");
    const code = buf.readUInt16BE(pos);
    const olen = buf.readUInt16BE(pos + 2);
    if (pos + 4 + olen > end) throw new WireError("EDNS option runs past its record");
    out.push({ code, data: Buffer.from(buf.subarray(pos + 4, pos + 4 + olen)) });
    pos += 4 + olen;
  }
  return out;
}

/** Decodes a message; throws WireError on anything malformed. Trailing bytes are ignored. */
export function decodeMessage(buf: Buffer): Message {
  if (buf.length < 12) throw new WireError("shorter than a DNS header");
  const id = buf.readUInt16BE(0);
  const word = buf.readUInt16BE(2);
  const qd = buf.readUInt16BE(4);
  const an = buf.readUInt16BE(6);
  const ns = buf.readUInt16BE(8);
  const ar = buf.readUInt16BE(10);
  if (qd + an + ns + ar > MAX_RECORDS) throw new WireError("too many records");
  let pos = 12;
  const questions: Question[] = [];
  for (let i = 0; i < qd; i++) {
    const [name, next] = readName(buf, pos);
    if (next + 4 > buf.length) throw new WireError("question runs past the end of the message");
    questions.push({ name, type: buf.readUInt16BE(next), class: buf.readUInt16BE(next + 2) });
    pos = next + 4;
  }
  const answers: ResourceRecord[] = [];
  const authorities: ResourceRecord[] = [];
  const additionals: ResourceRecord[] = [];
  pos = readRecords(buf, pos, an, answers, undefined);
  pos = readRecords(buf, pos, ns, authorities, undefined);
  const opt: { edns?: Edns; extRcode: number } = { extRcode: 0 };
  readRecords(buf, pos, ar, additionals, opt);
  const flags = word & ~RCODE_MASK;
  const rcode = (opt.extRcode << 4) | (word & RCODE_MASK);
  // One literal per shape, not a property added afterwards: a message's hidden class then comes from the
  // literal's site and lives as long as the code, so an idle full GC does not kill it and deoptimize every
  // function that saw it (docs/performance.md, "Soak", session 10).
  return opt.edns === undefined
    ? { id, flags, rcode, questions, answers, authorities, additionals }
    : { id, flags, rcode, questions, answers, authorities, additionals, edns: opt.edns };
}

export function opcodeOf(flags: number): number {
  return (flags & OPCODE_MASK) >>> 11;
}

export function dnssecOk(msg: Pick<Message, "edns">): boolean {
  return msg.edns !== undefined && (msg.edns.flags & EDNS_DO) !== 0;
}

const EMPTY = Buffer.alloc(0);

/**
 * A growable buffer with name compression. One writer serves every message (encodeMessage is synchronous):
 * a long-lived object keeps its hidden class and its Map's backing store across full collections, where a
 * writer per message left the optimized encode path to be deoptimized and compiled again after each one.
 */
class Writer {
  buf: Buffer = EMPTY;
  len = 0;
  private readonly names = new Map<string, number>();

  /** Starts a message in a fresh buffer of `size` bytes (the caller keeps the buffer it is given). */
  begin(size: number): this {
    this.buf = Buffer.allocUnsafe(size);
    this.len = 0;
    this.names.clear();
    return this;
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  u8(v: number): void {
    this.reserve(1);
    this.buf[this.len++] = v;
  }
  u16(v: number): void {
    this.reserve(2);
    this.buf.writeUInt16BE(v & 0xffff, this.len);
    this.len += 2;
  }
  u32(v: number): void {
    this.reserve(4);
    this.buf.writeUInt32BE(v >>> 0, this.len);
    this.len += 4;
  }
  bytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  /** Writes a name, pointing at an earlier copy of its longest known suffix. */
  name(n: Name, compress: boolean): void {
    if (!compress) {
      this.bytes(n);
      return;
    }
    const key = nameKey(n);
    let pos = 0;
    while (n[pos]! !== 0) {
      const suffix = key.slice(pos);
      const at = this.names.get(suffix);
      if (at !== undefined) {
        this.bytes(n.subarray(0, pos));
        this.u16(0xc000 | at);
        return;
      }
      if (this.len + pos < 0x3fff) this.names.set(suffix, this.len + pos);
      pos += n[pos]! + 1;
    }
    this.bytes(n);
  }

  /** Forgets compression targets at or after `len` (after a rollback). */
  rollback(len: number): void {
    this.len = len;
    for (const [k, at] of this.names) if (at >= len) this.names.delete(k);
  }
}

export interface EncodeOptions {
  /** Truncate to the question (TC set) when the message would be longer. */
  maxSize?: number;
}

export interface Encoded {
  wire: Buffer;
  /** Offset of each record's TTL field (OPT excluded), in section order. */
  ttlOffsets: number[];
  truncated: boolean;
}

function writeRecord(w: Writer, rr: ResourceRecord, ttlOffsets: number[]): void {
  w.name(rr.name, true);
  w.u16(rr.type);
  w.u16(rr.class);
  ttlOffsets.push(w.len);
  w.u32(rr.ttl);
  const lenAt = w.len;
  w.u16(0);
  const start = w.len;
  if (hasCompressibleNames(rr.type)) {
    let pos = 0;
    for (const span of rdataNames(rr.type, rr.data)) {
      w.bytes(rr.data.subarray(pos, span.offset));
      w.name(rr.data.subarray(span.offset, span.offset + span.length), span.compress);
      pos = span.offset + span.length;
    }
    w.bytes(rr.data.subarray(pos));
  } else {
    w.bytes(rr.data);
  }
  w.buf.writeUInt16BE(w.len - start, lenAt);
}

function writeOpt(w: Writer, edns: Edns, rcode: number): void {
  w.u8(0);
  w.u16(TYPE.OPT);
  w.u16(edns.udpSize);
  w.u8(rcode >>> 4);
  w.u8(edns.version);
  w.u16(edns.flags);
  const lenAt = w.len;
  w.u16(0);
  for (const o of edns.options) {
    w.u16(o.code);
    w.u16(o.data.length);
    w.bytes(o.data);
  }
  w.buf.writeUInt16BE(w.len - lenAt - 2, lenAt);
}

const writer = new Writer();

function writeHeader(w: Writer, msg: Message, flags: number, counts: number[]): void {
  w.buf.writeUInt16BE(msg.id, 0);
  w.buf.writeUInt16BE((flags & ~RCODE_MASK) | (msg.rcode & RCODE_MASK), 2);
  for (let i = 0; i < counts.length; i++) w.buf.writeUInt16BE(counts[i]!, 4 + 2 * i);
}

export function encodeMessage(msg: Message, opts: EncodeOptions = {}): Encoded {
  const w = writer.begin(512);
  w.len = 12;
  for (const q of msg.questions) {
    w.name(q.name, true);
    w.u16(q.type);
    w.u16(q.class);
  }
  const afterQuestion = w.len;
  const ttlOffsets: number[] = [];
  for (const rr of msg.answers) writeRecord(w, rr, ttlOffsets);
  for (const rr of msg.authorities) writeRecord(w, rr, ttlOffsets);
  for (const rr of msg.additionals) writeRecord(w, rr, ttlOffsets);
  const optSize = msg.edns === undefined ? 0 : 11 + msg.edns.options.reduce((n, o) => n + 4 + o.data.length, 0);
  const counts = [msg.questions.length, msg.answers.length, msg.authorities.length, msg.additionals.length + (msg.edns ? 1 : 0)];
  let flags = msg.flags;
  let truncated = false;
  if (opts.maxSize !== undefined && w.len + optSize > opts.maxSize) {
    w.rollback(afterQuestion);
    ttlOffsets.length = 0;
    counts[1] = counts[2] = 0;
    counts[3] = msg.edns ? 1 : 0;
    flags |= FLAG.TC;
    truncated = true;
  }
  if (msg.edns !== undefined) writeOpt(w, msg.edns, msg.rcode);
  writeHeader(w, msg, flags, counts);
  const wire = w.buf.subarray(0, w.len);
  w.buf = EMPTY; // the message owns its buffer now
  return { wire, ttlOffsets, truncated };
}

/** The question section of a message is exactly one uncompressed question at offset 12; its end. */
export function questionEnd(buf: Buffer): number {
  return skipUncompressedName(buf, 12) + 4;
}
