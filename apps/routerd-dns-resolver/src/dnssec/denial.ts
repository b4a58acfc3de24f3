// Authenticated denial of existence (RFC 4035 §5.4, RFC 5155 §8): whether the NSEC or NSEC3 records of a
// negative answer (already signature-checked) prove that the name, or the type at it, does not exist.
// Pure functions of the records; the chain of trust is the validator's job.
import { TYPE } from "../wire/constants.js";
import type { ResourceRecord } from "../wire/message.js";
import { canonicalCompare, labelCount, nameEquals, stripLabels, type Name } from "../wire/name.js";
import { NSEC3_OPT_OUT, base32hexDecode, nsec3Hash, parseNsec, parseNsec3, type Nsec3 } from "./records.js";

/** proven: the denial holds; optOut: an opt-out NSEC3 covers it (insecure, RFC 5155 §6); missing: no proof. */
export type DenialResult = "proven" | "optOut" | "missing";

const WILD = Buffer.from([1, 0x2a]);
const wildcardOf = (encloser: Name): Name => Buffer.concat([WILD, encloser]);

interface NsecEntry {
  owner: Name;
  next: Name;
  types: Set<number>;
}

function nsecs(records: readonly ResourceRecord[]): NsecEntry[] {
  return records.filter((r) => r.type === TYPE.NSEC).map((r) => ({ owner: r.name, ...parseNsec(r.data) }));
}

/** owner < name < next in canonical order; the last NSEC of a zone wraps around to the apex. */
function nsecCovers(e: NsecEntry, name: Name): boolean {
  const afterOwner = canonicalCompare(e.owner, name) < 0;
  const wraps = canonicalCompare(e.next, e.owner) <= 0;
  return afterOwner ? wraps || canonicalCompare(name, e.next) < 0 : wraps && canonicalCompare(name, e.next) < 0;
}

/** The longest ancestor of `name` that both ends of a covering NSEC share (the closest encloser). */
function commonAncestor(a: Name, b: Name): Name {
  let x = a;
  let y = b;
  const la = labelCount(x);
  const lb = labelCount(y);
  if (la > lb) x = stripLabels(x, la - lb);
  if (lb > la) y = stripLabels(y, lb - la);
  while (x.length > 1 && !nameEquals(x, y)) {
    x = stripLabels(x, 1);
    y = stripLabels(y, 1);
  }
  return x;
}

function closestEncloserNsec(qname: Name, covering: NsecEntry): Name {
  const a = commonAncestor(qname, covering.owner);
  const b = commonAncestor(qname, covering.next);
  return labelCount(a) >= labelCount(b) ? a : b;
}

function nsecNoType(e: NsecEntry, qtype: number): boolean {
  return !e.types.has(qtype) && !e.types.has(TYPE.CNAME);
}

export function nsecDenies(records: readonly ResourceRecord[], qname: Name, qtype: number, nxdomain: boolean): DenialResult {
  const list = nsecs(records);
  if (list.length === 0) return "missing";
  if (!nxdomain) {
    const exact = list.find((e) => nameEquals(e.owner, qname));
    if (exact !== undefined) return nsecNoType(exact, qtype) ? "proven" : "missing";
  }
  const covering = list.find((e) => nsecCovers(e, qname));
  if (covering === undefined) return "missing";
  const wildcard = wildcardOf(closestEncloserNsec(qname, covering));
  if (nxdomain) return list.some((e) => nsecCovers(e, wildcard)) ? "proven" : "missing";
  // NODATA through a wildcard: the wildcard exists without the type.
  const wild = list.find((e) => nameEquals(e.owner, wildcard));
  return wild !== undefined && nsecNoType(wild, qtype) ? "proven" : "missing";
}

interface Nsec3Entry extends Nsec3 {
  /** The hashed owner (the first label, decoded). */
  hash: Buffer;
}

function nsec3s(records: readonly ResourceRecord[]): Nsec3Entry[] {
  const out: Nsec3Entry[] = [];
  for (const r of records) {
    if (r.type !== TYPE.NSEC3 || r.name[0] === 0) continue;
    const hash = base32hexDecode(r.name.subarray(1, 1 + r.name[0]!).toString("latin1"));
    const n = parseNsec3(r.data);
    // SHA-1 is the only defined hash; huge iteration counts are refused (RFC 9276).
    if (hash !== undefined && n.hashAlgorithm === 1 && n.iterations <= 150) out.push({ ...n, hash });
  }
  return out;
}

function nsec3Covers(e: Nsec3Entry, h: Buffer): boolean {
  const afterOwner = Buffer.compare(e.hash, h) < 0;
  const wraps = Buffer.compare(e.next, e.hash) <= 0;
  return afterOwner ? wraps || Buffer.compare(h, e.next) < 0 : wraps && Buffer.compare(h, e.next) < 0;
}

/** RFC 5155 §8.3: the closest encloser (matched) and the next closer name (covered). */
function closestEncloserProof(list: Nsec3Entry[], qname: Name): { encloser: Name; nextCloserCovered: Nsec3Entry } | undefined {
  const params = list[0]!;
  const hash = (n: Name) => nsec3Hash(n, params.salt, params.iterations);
  let nextCloser = qname;
  for (let n = stripLabels(qname, 1); ; n = stripLabels(n, 1)) {
    const h = hash(n);
    if (list.some((e) => e.hash.equals(h))) {
      const hc = hash(nextCloser);
      const covering = list.find((e) => nsec3Covers(e, hc));
      return covering === undefined ? undefined : { encloser: n, nextCloserCovered: covering };
    }
    if (n.length <= 1) return undefined;
    nextCloser = n;
  }
}

export function nsec3Denies(records: readonly ResourceRecord[], qname: Name, qtype: number, nxdomain: boolean): DenialResult {
  const list = nsec3s(records);
  if (list.length === 0) return "missing";
  const params = list[0]!;
  if (list.some((e) => e.iterations !== params.iterations || !e.salt.equals(params.salt))) return "missing";
  const hash = (n: Name) => nsec3Hash(n, params.salt, params.iterations);
  if (!nxdomain) {
    const exact = list.find((e) => e.hash.equals(hash(qname)));
    if (exact !== undefined) return !exact.types.has(qtype) && !exact.types.has(TYPE.CNAME) ? "proven" : "missing";
  }
  const proof = closestEncloserProof(list, qname);
  if (proof === undefined) return "missing";
  if (proof.nextCloserCovered.flags & NSEC3_OPT_OUT) return "optOut";
  const wh = hash(wildcardOf(proof.encloser));
  if (nxdomain) return list.some((e) => nsec3Covers(e, wh)) ? "proven" : "missing";
  const wild = list.find((e) => e.hash.equals(wh));
  return wild !== undefined && !wild.types.has(qtype) && !wild.types.has(TYPE.CNAME) ? "proven" : "missing";
}

/** Either kind of proof, whichever the zone uses. */
export function denies(records: readonly ResourceRecord[], qname: Name, qtype: number, nxdomain: boolean): DenialResult {
  return records.some((r) => r.type === TYPE.NSEC3) ? nsec3Denies(records, qname, qtype, nxdomain) : nsecDenies(records, qname, qtype, nxdomain);
}

/** A wildcard expansion is legitimate only if the name asked for does not exist (RFC 4035 §5.3.4). */
export function wildcardAllowed(records: readonly ResourceRecord[], qname: Name, sourceOfSynthesis: Name): boolean {
  const list = nsecs(records);
  if (list.length > 0) return list.some((e) => nsecCovers(e, qname));
  const n3 = nsec3s(records);
  if (n3.length === 0) return false;
  // The next closer name (one label below the wildcard's parent, toward qname) must be covered.
  const encloser = stripLabels(sourceOfSynthesis, 1);
  const depth = labelCount(qname) - labelCount(encloser);
  const nextCloser = stripLabels(qname, depth - 1);
  const h = nsec3Hash(nextCloser, n3[0]!.salt, n3[0]!.iterations);
  return n3.some((e) => nsec3Covers(e, h));
}
