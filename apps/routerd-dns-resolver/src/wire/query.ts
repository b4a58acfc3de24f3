// The hot path's parser: a client's query read without decoding the whole message. It checks what a
// server must check (header, one uncompressed question, at most one OPT) and builds the cache key in a
// shared buffer (no allocation): the lower-cased question name, type and class, plus a byte for the DO and
// CD bits, with its FNV-1a hash. The key bytes stay valid until the next parse; queryKey() copies them.
import { CLASSIC_UDP_SIZE, EDNS_DO, EDNS_UDP_SIZE, FLAG, MAX_LABEL_LENGTH, MAX_NAME_LENGTH, OPCODE_MASK, TYPE } from "./constants.js";

export interface Query {
  id: number;
  /** The header flags word as received. */
  flags: number;
  opcode: number;
  /** Offset just after the question's name (the name itself starts at 12). */
  nameEnd: number;
  qtype: number;
  qclass: number;
  /** Length of the key in keyBuffer: lower-cased name + type + class + (DO | CD << 1). */
  keyLen: number;
  /** FNV-1a of the key bytes (the cache's hash). */
  keyHash: number;
  /** Length of the name part of the key. */
  nameLength: number;
  edns: boolean;
  ednsVersion: number;
  /** The client's advertised UDP size (512 without EDNS). */
  udpSize: number;
  dnssecOk: boolean;
  checkingDisabled: boolean;
}

/** Why a query gets no normal answer: drop it, or answer with this rcode. */
export type QueryProblem = { drop: true; reason: string } | { drop: false; rcode: number; reason: string };

const FORMERR = 1;
const NOTIMP = 4;

const keyScratch = Buffer.allocUnsafe(MAX_NAME_LENGTH + 8);

const shared: Query = {
  id: 0,
  flags: 0,
  opcode: 0,
  nameEnd: 0,
  qtype: 0,
  qclass: 0,
  keyLen: 0,
  keyHash: 0,
  nameLength: 0,
  edns: false,
  ednsVersion: 0,
  udpSize: 0,
  dnssecOk: false,
  checkingDisabled: false,
};

/**
 * Parses the query in `buf`, or says why not. The Query returned is shared and overwritten by the next
 * parse (the hot path allocates nothing): copy it ({ ...q }) to keep it across an await.
 */
export function parseQuery(buf: Buffer): Query | QueryProblem {
  const len = buf.length;
  if (len < 12) return { drop: true, reason: "short" };
  const flags = (buf[2]! << 8) | buf[3]!;
  if ((flags & FLAG.QR) !== 0) return { drop: true, reason: "response" };
  const opcode = (flags & OPCODE_MASK) >>> 11;
  const qd = (buf[4]! << 8) | buf[5]!;
  const an = (buf[6]! << 8) | buf[7]!;
  const ns = (buf[8]! << 8) | buf[9]!;
  const ar = (buf[10]! << 8) | buf[11]!;
  if (opcode !== 0) return { drop: false, rcode: NOTIMP, reason: "opcode" };
  if (qd !== 1 || an !== 0 || ns !== 0) return { drop: false, rcode: FORMERR, reason: "sections" };

  // The name: labels only (a pointer has nothing earlier to point to), lower-cased into the key.
  let pos = 12;
  let k = 0;
  for (;;) {
    if (pos >= len) return { drop: false, rcode: FORMERR, reason: "name" };
    const l = buf[pos]!;
    if (l === 0) break;
    if (l > MAX_LABEL_LENGTH || pos + l + 1 >= len || pos - 12 + l + 2 > MAX_NAME_LENGTH) return { drop: false, rcode: FORMERR, reason: "name" };
    keyScratch[k++] = l;
    for (let i = pos + 1; i <= pos + l; i++) {
      const b = buf[i]!;
      keyScratch[k++] = b >= 0x41 && b <= 0x5a ? b | 0x20 : b;
    }
    pos += l + 1;
  }
  keyScratch[k++] = 0;
  const nameEnd = pos + 1;
  if (nameEnd + 4 > len) return { drop: false, rcode: FORMERR, reason: "question" };
  const qtype = (buf[nameEnd]! << 8) | buf[nameEnd + 1]!;
  const qclass = (buf[nameEnd + 2]! << 8) | buf[nameEnd + 3]!;

  let edns = false;
  let ednsVersion = 0;
  let udpSize = CLASSIC_UDP_SIZE;
  let dnssecOk = false;
  pos = nameEnd + 4;
  for (let i = 0; i < ar; i++) {
    // Additional records in a query: OPT (name = root) is the only one we use; others are skipped.
    if (pos >= len) return { drop: false, rcode: FORMERR, reason: "additional" };
    let p = pos;
    // Skip a name (compressed or not).
    for (let guard = 0; ; guard++) {
      if (p >= len || guard > 127) return { drop: false, rcode: FORMERR, reason: "additional" };
      const l = buf[p]!;
      if (l === 0) {
        p++;
        break;
      }
      if ((l & 0xc0) === 0xc0) {
        p += 2;
        break;
      }
      if (l > MAX_LABEL_LENGTH) return { drop: false, rcode: FORMERR, reason: "additional" };
      p += l + 1;
    }
    if (p + 10 > len) return { drop: false, rcode: FORMERR, reason: "additional" };
    const type = (buf[p]! << 8) | buf[p + 1]!;
    const rdlen = (buf[p + 8]! << 8) | buf[p + 9]!;
    if (p + 10 + rdlen > len) return { drop: false, rcode: FORMERR, reason: "additional" };
    if (type === TYPE.OPT) {
      if (edns || p !== pos + 1) return { drop: false, rcode: FORMERR, reason: "opt" };
      edns = true;
      udpSize = Math.max(CLASSIC_UDP_SIZE, (buf[p + 2]! << 8) | buf[p + 3]!);
      ednsVersion = buf[p + 5]!;
      dnssecOk = (((buf[p + 6]! << 8) | buf[p + 7]!) & EDNS_DO) !== 0;
    }
    pos = p + 10 + rdlen;
  }

  keyScratch[k] = buf[nameEnd]!;
  keyScratch[k + 1] = buf[nameEnd + 1]!;
  keyScratch[k + 2] = buf[nameEnd + 2]!;
  keyScratch[k + 3] = buf[nameEnd + 3]!;
  const checkingDisabled = (flags & FLAG.CD) !== 0;
  keyScratch[k + 4] = 0x30 | (dnssecOk ? 1 : 0) | (checkingDisabled ? 2 : 0);
  let hash = 0x811c9dc5;
  for (let i = 0; i < k + 5; i++) {
    hash ^= keyScratch[i]!;
    hash = Math.imul(hash, 0x01000193);
  }
  // The one shared result (no allocation per query); callers that keep it past the next parse copy it.
  const q = shared;
  q.id = (buf[0]! << 8) | buf[1]!;
  q.flags = flags;
  q.opcode = opcode;
  q.nameEnd = nameEnd;
  q.qtype = qtype;
  q.qclass = qclass;
  q.keyLen = k + 5;
  q.keyHash = hash >>> 0;
  q.nameLength = k;
  q.edns = edns;
  q.ednsVersion = ednsVersion;
  q.udpSize = udpSize;
  q.dnssecOk = dnssecOk;
  q.checkingDisabled = checkingDisabled;
  return q;
}

/** The buffer the last parse left its key in (valid until the next parse). */
export const keyBuffer: Buffer = keyScratch;

/** The last parsed query's key as a string (for maps that outlive the parse). */
export function queryKey(q: Pick<Query, "keyLen">): string {
  return keyScratch.latin1Slice(0, q.keyLen);
}

export function isProblem(q: Query | QueryProblem): q is QueryProblem {
  return (q as QueryProblem).reason !== undefined;
}

/** The largest UDP answer this client takes from us. */
export function udpLimit(q: Pick<Query, "edns" | "udpSize">): number {
  return q.edns ? Math.min(q.udpSize, EDNS_UDP_SIZE) : CLASSIC_UDP_SIZE;
}

/** The cache key of a question asked with these bits, built like parseQuery's. */
export function cacheKey(nameKey: string, qtype: number, qclass: number, dnssecOk: boolean, checkingDisabled: boolean): string {
  return nameKey + String.fromCharCode(qtype >>> 8, qtype & 0xff, qclass >>> 8, qclass & 0xff, 0x30 | (dnssecOk ? 1 : 0) | (checkingDisabled ? 2 : 0));
}
