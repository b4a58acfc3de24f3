// An answer in wire form, ready to send: the header (id and flags are patched per client), the question,
// the records (no OPT; it is appended per client) and where each TTL sits. Serving it copies the bytes,
// writes the client's id, its question name (so its 0x20 case comes back) and the remaining TTLs: no
// decoding, no encoding. Built once per upstream answer or local-zone lookup; the caches keep the same
// bytes in their arena (wire-store.ts).
import { RCODE, TYPE } from "../wire/constants.js";
import { encodeMessage, questionEnd, type Message, type ResourceRecord } from "../wire/message.js";
import { FLAG_AUTHORITATIVE, FLAG_NEGATIVE, FLAG_SECURE, TTL_PAIR, type RecordInput } from "./wire-store.js";

export interface StoredAnswer {
  wire: Buffer;
  /** u16 offset + u32 stored TTL of each record (TTL_PAIR bytes each); empty for local answers (they never age). */
  ttlPairs: Buffer;
  rcode: number;
  /** Local zones are authoritative. */
  authoritative: boolean;
  /** DNSSEC-validated: AD is set for clients that ask (DO or AD). */
  secure: boolean;
  /** RFC 8914 code sent with this answer (a bogus SERVFAIL, say); -1 for none. */
  ede: number;
  storedAt: number;
  /** When the smallest TTL reaches zero (ms); Infinity for local answers. After it, the cache's staleTtl
   * says how long the answer may still be served while upstreams fail (RFC 8767). */
  expiresAt: number;
  /** Lifetime in seconds when stored, for prefetch decisions. */
  lifetime: number;
  negative: boolean;
  /** False for answers only worth passing on (SERVFAIL, a negative answer without SOA). */
  cacheable: boolean;
}

export interface TtlPolicy {
  minTtl: number;
  maxTtl: number;
  /** Upper bound for negative answers (RFC 2308). */
  negativeTtl: number;
  /** How long an expired answer stays usable as a stale answer, seconds. */
  staleTtl: number;
}

const DNSSEC_TYPES = new Set<number>([TYPE.RRSIG, TYPE.NSEC, TYPE.NSEC3]);

/** Without DO the client gets no DNSSEC records it did not ask for (RFC 4035 §3.2.1). */
export function stripDnssec(records: ResourceRecord[], qtype: number): ResourceRecord[] {
  return records.some((r) => DNSSEC_TYPES.has(r.type) && r.type !== qtype) ? records.filter((r) => !DNSSEC_TYPES.has(r.type) || r.type === qtype) : records;
}

const clamp = (v: number, min: number, max: number): number => Math.min(Math.max(v, min), max);

/** RFC 2308 §5: a negative answer lives for the SOA's TTL or its minimum field, whichever is smaller. */
export function negativeTtl(authorities: ResourceRecord[]): number | undefined {
  const soa = authorities.find((r) => r.type === TYPE.SOA);
  if (soa === undefined || soa.data.length < 20) return undefined;
  return Math.min(soa.ttl, soa.data.readUInt32BE(soa.data.length - 4));
}

export function isNegative(msg: Pick<Message, "rcode" | "answers">): boolean {
  return msg.rcode === RCODE.NXDOMAIN || (msg.rcode === RCODE.NOERROR && msg.answers.length === 0);
}

export interface BuildOptions {
  now: number;
  /** Keep DNSSEC records (the client set DO). */
  dnssecOk: boolean;
  /** undefined: a local answer whose TTLs never age. */
  policy?: TtlPolicy;
  secure?: boolean;
  ede?: number;
}

/**
 * The stored form of a response, TTLs clamped by the policy. A forwarded answer that must not be cached (a
 * negative answer without SOA, a SERVFAIL) comes back with cacheable false.
 */
export function buildStoredAnswer(msg: Message, opts: BuildOptions): StoredAnswer {
  const q = msg.questions[0];
  const qtype = q?.type ?? 0;
  const keep = (rs: ResourceRecord[]) => (opts.dnssecOk ? rs : stripDnssec(rs, qtype));
  const policy = opts.policy;
  const negative = isNegative(msg);
  let lifetime = Infinity;
  let cacheable = true;
  const clampAll = (rs: ResourceRecord[]): ResourceRecord[] =>
    policy === undefined ? rs : rs.map((r) => ({ ...r, ttl: clamp(r.ttl, policy.minTtl, policy.maxTtl) }));
  const answers = clampAll(keep(msg.answers));
  let authorities = keep(msg.authorities);
  const additionals = clampAll(keep(msg.additionals));
  if (policy !== undefined) {
    if (negative) {
      const ttl = negativeTtl(authorities);
      if (ttl === undefined) cacheable = false;
      const neg = clamp(ttl ?? 0, policy.minTtl, policy.negativeTtl);
      authorities = authorities.map((r) => ({ ...r, ttl: Math.min(clamp(r.ttl, policy.minTtl, policy.maxTtl), neg) }));
      lifetime = neg;
    } else if (msg.rcode === RCODE.NOERROR) {
      authorities = clampAll(authorities);
      for (const r of answers) lifetime = Math.min(lifetime, r.ttl);
    } else {
      cacheable = false;
    }
    if (!Number.isFinite(lifetime) || lifetime <= 0 || msg.questions.length !== 1) {
      lifetime = 0;
      cacheable = false;
    }
  }
  const encoded = encodeMessage({ ...msg, id: 0, edns: undefined, answers, authorities, additionals } as Message);
  const wire = Buffer.from(encoded.wire);
  const ttlPairs = Buffer.allocUnsafe(policy === undefined ? 0 : encoded.ttlOffsets.length * TTL_PAIR);
  if (policy !== undefined) {
    const all = [...answers, ...authorities, ...additionals];
    encoded.ttlOffsets.forEach((off, i) => {
      ttlPairs.writeUInt16LE(off, i * TTL_PAIR);
      ttlPairs.writeUInt32LE(all[i]!.ttl, i * TTL_PAIR + 2);
    });
  }
  const now = opts.now;
  const expiresAt = policy === undefined ? Infinity : now + (cacheable ? lifetime * 1000 : 0);
  return {
    wire,
    ttlPairs,
    rcode: msg.rcode,
    authoritative: policy === undefined,
    secure: opts.secure ?? false,
    ede: opts.ede ?? -1,
    storedAt: now,
    expiresAt,
    lifetime: policy === undefined ? 0 : lifetime,
    negative,
    cacheable,
  };
}

/** Where the question ends in an answer we encoded (12 when it has none). */
export function storedQuestionEnd(wire: Buffer): number {
  return wire.readUInt16BE(4) === 0 ? 12 : questionEnd(wire);
}

/** The flags byte the arena keeps for an answer. */
export function storedFlags(a: StoredAnswer): number {
  return (a.authoritative ? FLAG_AUTHORITATIVE : 0) | (a.secure ? FLAG_SECURE : 0) | (a.negative ? FLAG_NEGATIVE : 0);
}

/** What the arena keeps of an answer (WireStore.set). */
export function recordOf(a: StoredAnswer): RecordInput {
  return {
    wire: a.wire,
    questionEnd: storedQuestionEnd(a.wire),
    ttlPairs: a.ttlPairs,
    rcode: a.rcode,
    flags: storedFlags(a),
    ede: a.ede,
    storedAt: a.storedAt,
    expiresAt: a.expiresAt,
  };
}
