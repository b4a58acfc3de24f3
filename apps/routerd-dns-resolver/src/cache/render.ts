// Answers to one client, from stored wire answers or as bare error responses. The hot path: one
// allocation, a latin1 copy, and a few integer writes.
import { EDNS_DO, EDNS_OPTION, EDNS_UDP_SIZE, FLAG, RCODE_MASK, TYPE } from "../wire/constants.js";
import type { Query } from "../wire/query.js";
import type { StoredAnswer } from "./stored-answer.js";

/** TTL of a stale answer (RFC 8767 §4 recommends 30 s). */
export const STALE_TTL = 30;

const OPT_SIZE = 11;

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

/** The stored answer for this client: its id, its question's spelling, current TTLs, its EDNS. */
export function renderAnswer(e: StoredAnswer, query: Buffer, q: Query, opts: RenderOptions): Buffer {
  const ede = opts.stale ? (e.negative ? 19 : 3) : e.ede;
  const optLen = q.edns ? OPT_SIZE + edeOption(ede) : 0;
  const wireLen = e.wire.length;
  const questionEnd = q.nameEnd + 4;
  if (wireLen + optLen > opts.limit) return renderTruncated(query, q, e.rcode, optLen, e.authoritative);
  const out = Buffer.allocUnsafe(wireLen + optLen);
  out.latin1Write(e.wire, 0, wireLen);
  out[0] = query[0]!;
  out[1] = query[1]!;
  out.writeUInt16BE(answerFlags(q.flags, e.rcode, e.authoritative, e.secure, q.dnssecOk), 2);
  query.copy(out, 12, 12, questionEnd);
  const ttls = e.ttls;
  if (ttls.length > 0) {
    if (opts.stale) {
      for (let i = 0; i < ttls.length; i += 2) out.writeUInt32BE(Math.min(ttls[i + 1]!, STALE_TTL), ttls[i]!);
    } else {
      const age = Math.floor((opts.now - e.storedAt) / 1000);
      if (age > 0) for (let i = 0; i < ttls.length; i += 2) out.writeUInt32BE(Math.max(ttls[i + 1]! - age, 0), ttls[i]!);
    }
  }
  if (q.edns) {
    writeOpt(out, wireLen, q, e.rcode, ede);
    out.writeUInt16BE(out.readUInt16BE(10) + 1, 10);
  }
  return out;
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
