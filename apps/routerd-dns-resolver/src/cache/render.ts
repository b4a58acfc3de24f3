// Answers to one client, from stored wire answers or as bare error responses. The hot path: one
// allocation, a few byte copies, and a few integer writes.
import { EDNS_DO, EDNS_OPTION, EDNS_UDP_SIZE, FLAG, RCODE_MASK, TYPE } from "../wire/constants.js";
import type { Query } from "../wire/query.js";
import { storedFlags, storedQuestionEnd, type StoredAnswer } from "./stored-answer.js";
import { FLAG_AUTHORITATIVE, FLAG_NEGATIVE, FLAG_SECURE, TTL_PAIR, type WireStore } from "./wire-store.js";

/** TTL of a stale answer (RFC 8767 §4 recommends 30 s). */
export const STALE_TTL = 30;

const OPT_SIZE = 11;

/** Byte copy without Buffer#copy's argument checks (answers are short; this is the hot path). */
function copyBytes(src: Uint8Array, srcStart: number, len: number, dst: Uint8Array, dstStart: number): void {
  if (len > 256) {
    dst.set(src.subarray(srcStart, srcStart + len), dstStart);
    return;
  }
  for (let i = 0; i < len; i++) dst[dstStart + i] = src[srcStart + i]!;
}

/** The flags word of our answer: RD and CD echoed, RA always, AD only when validated and wanted. */
function answerFlags(clientFlags: number, rcode: number, authoritative: boolean, secure: boolean, dnssecOk: boolean): number {
  let f = FLAG.QR | FLAG.RA | (clientFlags & (FLAG.RD | FLAG.CD)) | (rcode & RCODE_MASK);
  if (authoritative) f |= FLAG.AA;
  if (secure && (dnssecOk || (clientFlags & FLAG.AD) !== 0)) f |= FLAG.AD;
  return f;
}

function edeOption(code: number): number {
  return code < 0 ? 0 : 6;
}

/** Writes our OPT record at `off`; returns the offset after it. */
function writeOpt(out: Buffer, off: number, q: Pick<Query, "dnssecOk">, rcode: number, ede: number): number {
  out[off] = 0;
  out.writeUInt16BE(TYPE.OPT, off + 1);
  out.writeUInt16BE(EDNS_UDP_SIZE, off + 3);
  out[off + 5] = rcode >>> 4;
  out[off + 6] = 0;
  out.writeUInt16BE(q.dnssecOk ? EDNS_DO : 0, off + 7);
  if (ede < 0) {
    out.writeUInt16BE(0, off + 9);
    return off + OPT_SIZE;
  }
  out.writeUInt16BE(6, off + 9);
  out.writeUInt16BE(EDNS_OPTION.EDE, off + 11);
  out.writeUInt16BE(2, off + 13);
  out.writeUInt16BE(ede, off + 15);
  return off + OPT_SIZE + 6;
}

export interface RenderOptions {
  now: number;
  /** Largest answer the transport takes (UDP: the client's size; TCP: 65535). */
  limit: number;
  /** Serve an expired answer with STALE_TTL. */
  stale?: boolean;
}

/**
 * The core: an answer for this client from its stored parts — the DNS header at src[headerStart, +12), the
 * records after the question at src[bodyStart, +bodyLen), TTL positions at ttlSrc[ttlStart] (TTL_PAIR bytes
 * each) — with the client's id, its question as it spelled it, current TTLs and its EDNS.
 */
function render(
  src: Buffer,
  headerStart: number,
  bodyStart: number,
  bodyLen: number,
  ttlSrc: Buffer,
  ttlStart: number,
  ttlCount: number,
  meta: { rcode: number; flags: number; ede: number; storedAt: number },
  query: Buffer,
  q: Query,
  opts: RenderOptions,
): Buffer {
  const negative = (meta.flags & FLAG_NEGATIVE) !== 0;
  const authoritative = (meta.flags & FLAG_AUTHORITATIVE) !== 0;
  const ede = opts.stale ? (negative ? 19 : 3) : meta.ede;
  const optLen = q.edns ? OPT_SIZE + edeOption(ede) : 0;
  const questionEnd = q.nameEnd + 4;
  const len = questionEnd + bodyLen;
  if (len + optLen > opts.limit) return renderTruncated(query, q, meta.rcode, optLen, authoritative);
  const out = Buffer.allocUnsafe(len + optLen);
  out[0] = query[0]!;
  out[1] = query[1]!;
  out.writeUInt16BE(answerFlags(q.flags, meta.rcode, authoritative, (meta.flags & FLAG_SECURE) !== 0, q.dnssecOk), 2);
  copyBytes(src, headerStart + 4, 8, out, 4);
  copyBytes(query, 12, questionEnd - 12, out, 12);
  copyBytes(src, bodyStart, bodyLen, out, questionEnd);
  if (ttlCount > 0) {
    const age = opts.stale ? 0 : Math.floor((opts.now - meta.storedAt) / 1000);
    if (opts.stale || age > 0) {
      for (let i = 0, p = ttlStart; i < ttlCount; i++, p += TTL_PAIR) {
        const ttl = ttlSrc.readUInt32LE(p + 2);
        out.writeUInt32BE(opts.stale ? Math.min(ttl, STALE_TTL) : Math.max(ttl - age, 0), ttlSrc.readUInt16LE(p));
      }
    }
  }
  if (q.edns) {
    writeOpt(out, len, q, meta.rcode, ede);
    out.writeUInt16BE(out.readUInt16BE(10) + 1, 10);
  }
  return out;
}

const recordMeta = { rcode: 0, flags: 0, ede: -1, storedAt: 0 };
const DNS_HEADER = 12;

/** An answer from a cache's arena (see WireStore: the record holds no question, the client's goes in). */
export function renderRecord(store: WireStore, off: number, query: Buffer, q: Query, opts: RenderOptions): Buffer {
  recordMeta.rcode = store.rcode(off);
  recordMeta.flags = store.flags(off);
  recordMeta.ede = store.ede(off);
  recordMeta.storedAt = store.storedAt(off);
  const wireStart = store.wireStart(off);
  const wireLen = store.wireLen(off);
  const a = store.arena;
  return render(a, wireStart, wireStart + DNS_HEADER, wireLen - DNS_HEADER, a, wireStart + wireLen, store.ttlCount(off), recordMeta, query, q, opts);
}

/** A freshly built answer (forwarded now, synthesized, or not cacheable). */
export function renderAnswer(a: StoredAnswer, query: Buffer, q: Query, opts: RenderOptions): Buffer {
  const meta = { rcode: a.rcode, flags: storedFlags(a), ede: a.ede, storedAt: a.storedAt };
  const body = storedQuestionEnd(a.wire);
  return render(a.wire, 0, body, a.wire.length - body, a.ttlPairs, 0, a.ttlPairs.length / TTL_PAIR, meta, query, q, opts);
}

/** Header and question with TC set: the client retries over TCP. */
function renderTruncated(query: Buffer, q: Query, rcode: number, optLen: number, authoritative: boolean): Buffer {
  const questionEnd = q.nameEnd + 4;
  const out = Buffer.allocUnsafe(questionEnd + (q.edns ? OPT_SIZE : 0));
  query.copy(out, 0, 0, questionEnd);
  out.writeUInt16BE(answerFlags(q.flags, rcode, authoritative, false, q.dnssecOk) | FLAG.TC, 2);
  out.writeUInt32BE(0x00010000, 4);
  out.writeUInt16BE(0, 8);
  out.writeUInt16BE(q.edns ? 1 : 0, 10);
  if (q.edns && optLen > 0) writeOpt(out, questionEnd, q, rcode, -1);
  return out;
}

/**
 * A bare response: header, the question when there is a parsed one, and OPT when the client sent one.
 * For FORMERR, NOTIMP, REFUSED, SERVFAIL, BADVERS.
 */
export function renderError(query: Buffer, q: Query | undefined, rcode: number, ede = -1): Buffer {
  if (q === undefined) {
    // Nothing trustworthy beyond the id and opcode.
    const out = Buffer.alloc(12);
    if (query.length >= 2) query.copy(out, 0, 0, 2);
    const opcode = query.length >= 3 ? query[2]! & 0x78 : 0;
    out.writeUInt16BE(FLAG.QR | (opcode << 8) | (rcode & RCODE_MASK), 2);
    return out;
  }
  const questionEnd = q.nameEnd + 4;
  const out = Buffer.allocUnsafe(questionEnd + (q.edns ? OPT_SIZE + edeOption(ede) : 0));
  query.copy(out, 0, 0, questionEnd);
  out.writeUInt16BE(answerFlags(q.flags, rcode, false, false, q.dnssecOk), 2);
  out.writeUInt32BE(0x00010000, 4);
  out.writeUInt16BE(0, 8);
  out.writeUInt16BE(q.edns ? 1 : 0, 10);
  if (q.edns) writeOpt(out, questionEnd, q, rcode, ede);
  return out;
}
