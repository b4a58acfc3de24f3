// DNSSEC validation of forwarded answers (RFC 4033-4035, RFC 5155), as a validating stub: every RRset of
// the answer must carry a signature that verifies with its zone's DNSKEYs, and those keys must chain to a
// trust anchor through DS records (fetched through the same upstreams); negative answers must be proven by
// NSEC or NSEC3. A zone proven unsigned (no DS at its delegation) makes the answer insecure, not bogus.
import type { Message, ResourceRecord } from "../wire/message.js";
import { EDE, RCODE, TYPE } from "../wire/constants.js";
import { isSubdomain, labelCount, nameEquals, nameKey, nameToText, stripLabels, suffixKeys, type Name } from "../wire/name.js";
import { upstreamQuestion, type UpstreamQuestion } from "../upstream/question.js";
import { buildAnchors, type TrustAnchor } from "./anchors.js";
import { signedData } from "./canonical.js";
import { dsDigest, supportedAlgorithm, supportedDigest, verifySignature } from "./crypto.js";
import { denies, wildcardAllowed } from "./denial.js";
import { DNSKEY_ZONE, parseDnskey, parseDs, parseNsec, parseNsec3, parseRrsig, serialLte, type Dnskey, type Rrsig } from "./records.js";
import type { AnswerValidator, FetchRecords, Validation } from "./validation.js";

type ZoneKeys = { status: "secure"; keys: Dnskey[] } | { status: "insecure" };

class Bogus extends Error {
  constructor(
    readonly ede: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ValidatorOptions {
  /** DS/DNSKEY lines; empty: the root's KSKs. */
  trustAnchors: readonly string[];
  /** Seconds since the epoch (signature validity). */
  now?: () => number;
}

interface Ctx {
  fetch: FetchRecords;
  anchor: TrustAnchor;
}

/** How long validated keys and zone cuts are reused (they are re-fetched after this). */
const ZONE_CACHE_MS = 300_000;
const ZONE_CACHE_ENTRIES = 1024;
/** Levels of DS lookups below an anchor before giving up (a deep name is not a reason to loop forever). */
const MAX_WALK = 16;

interface Rrset {
  owner: Name;
  type: number;
  records: ResourceRecord[];
}

function rrsets(records: readonly ResourceRecord[]): Rrset[] {
  const out = new Map<string, Rrset>();
  for (const r of records) {
    if (r.type === TYPE.RRSIG) continue;
    const id = `${nameKey(r.name)}/${r.type}`;
    const set = out.get(id) ?? { owner: r.name, type: r.type, records: [] };
    set.records.push(r);
    out.set(id, set);
  }
  return [...out.values()];
}

function signaturesFor(set: Rrset, records: readonly ResourceRecord[]): Rrsig[] {
  const out: Rrsig[] = [];
  for (const r of records) {
    if (r.type !== TYPE.RRSIG || !nameEquals(r.name, set.owner)) continue;
    try {
      const sig = parseRrsig(r.data);
      if (sig.typeCovered === set.type) out.push(sig);
    } catch {
      // a malformed RRSIG verifies nothing
    }
  }
  return out;
}

export class DnssecValidator implements AnswerValidator {
  private readonly anchors: Map<string, TrustAnchor>;
  private readonly cache = new Map<string, { value: ZoneKeys; until: number }>();
  private readonly pending = new Map<string, Promise<ZoneKeys>>();
  private readonly now: () => number;

  constructor(opts: ValidatorOptions) {
    this.anchors = buildAnchors(opts.trustAnchors);
    this.now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  }

  private anchorFor(name: Name): TrustAnchor | undefined {
    for (const k of suffixKeys(name)) {
      const a = this.anchors.get(k);
      if (a !== undefined) return a;
    }
    return undefined;
  }

  async validate(msg: Message, q: UpstreamQuestion, fetch: FetchRecords): Promise<Validation> {
    const anchor = this.anchorFor(q.name);
    if (anchor === undefined) return { status: "indeterminate", reason: "no trust anchor covers the name" };
    const ctx: Ctx = { fetch, anchor };
    try {
      let insecure = false;
      let target = q.name;
      for (const set of rrsets(msg.answers)) {
        if ((await this.checkRrset(set, msg.answers, msg.authorities, ctx)) === "insecure") insecure = true;
        if (set.type === TYPE.CNAME && nameEquals(set.owner, target) && q.type !== TYPE.CNAME) target = set.records[0]!.data;
      }
      const answered = msg.answers.some((r) => r.type === q.type && nameEquals(r.name, target));
      if (!answered && (msg.rcode === RCODE.NOERROR || msg.rcode === RCODE.NXDOMAIN)) {
        if ((await this.checkDenial(msg, target, q.type, ctx)) === "insecure") insecure = true;
      }
      return { status: insecure ? "insecure" : "secure" };
    } catch (err) {
      if (err instanceof Bogus) return { status: "bogus", ede: err.ede, reason: err.message };
      throw err;
    }
  }

  /** One RRset: secure (a signature verifies with its zone's keys), insecure (unsigned zone), or throws Bogus. */
  private async checkRrset(set: Rrset, section: readonly ResourceRecord[], authority: readonly ResourceRecord[], ctx: Ctx): Promise<"secure" | "insecure"> {
    const sigs = signaturesFor(set, section).filter((s) => isSubdomain(set.owner, s.signer) && isSubdomain(s.signer, ctx.anchor.owner));
    if (sigs.length === 0) {
      const zone = await this.zoneOf(set.owner, ctx);
      if (zone.status === "insecure") return "insecure";
      throw new Bogus(EDE.RRSIGS_MISSING, `no signature for ${nameToText(set.owner)} ${set.type}`);
    }
    let failure: Bogus | undefined;
    for (const sig of sigs) {
      const keys = await this.zoneKeys(sig.signer, ctx);
      if (keys.status === "insecure") return "insecure";
      const problem = this.verify(set, sig, keys.keys);
      if (problem === undefined) {
        if (sig.labels < labelCount(set.owner)) {
          const source = Buffer.concat([Buffer.from([1, 0x2a]), stripLabels(set.owner, labelCount(set.owner) - sig.labels)]);
          if (!wildcardAllowed(authority, set.owner, source)) throw new Bogus(EDE.NSEC_MISSING, `wildcard answer for ${nameToText(set.owner)} without proof that the name does not exist`);
        }
        return "secure";
      }
      failure = problem;
    }
    throw failure ?? new Bogus(EDE.DNSSEC_BOGUS, "no usable signature");
  }

  /** undefined when `sig` verifies `set` with one of `keys` and is valid now; otherwise why not. */
  private verify(set: Rrset, sig: Rrsig, keys: readonly Dnskey[]): Bogus | undefined {
    const now = this.now();
    if (!serialLte(sig.inception, now)) return new Bogus(EDE.SIGNATURE_NOT_YET_VALID, `signature for ${nameToText(set.owner)} not valid yet`);
    if (!serialLte(now, sig.expiration)) return new Bogus(EDE.SIGNATURE_EXPIRED, `signature for ${nameToText(set.owner)} expired`);
    const data = signedData(sig, set.records);
    for (const k of keys) {
      if (k.keyTag !== sig.keyTag || k.algorithm !== sig.algorithm || (k.flags & DNSKEY_ZONE) === 0) continue;
      if (verifySignature(sig.algorithm, k.publicKey, data, sig.signature)) return undefined;
    }
    return new Bogus(EDE.DNSSEC_BOGUS, `signature for ${nameToText(set.owner)} does not verify`);
  }

  /** A negative answer: its SOA/NSEC/NSEC3 records are signed and prove the denial. */
  private async checkDenial(msg: Message, qname: Name, qtype: number, ctx: Ctx): Promise<"secure" | "insecure"> {
    const sets = rrsets(msg.authorities).filter((s) => s.type === TYPE.SOA || s.type === TYPE.NSEC || s.type === TYPE.NSEC3);
    if (sets.length === 0 || !sets.some((s) => s.type === TYPE.NSEC || s.type === TYPE.NSEC3)) {
      const zone = await this.zoneOf(qname, ctx);
      if (zone.status === "insecure") return "insecure";
      throw new Bogus(EDE.NSEC_MISSING, `no NSEC or NSEC3 proves that ${nameToText(qname)} has no ${qtype}`);
    }
    for (const s of sets) if ((await this.checkRrset(s, msg.authorities, msg.authorities, ctx)) === "insecure") return "insecure";
    const proof = denies(msg.authorities, qname, qtype, msg.rcode === RCODE.NXDOMAIN);
    if (proof === "optOut") return "insecure";
    if (proof === "missing") throw new Bogus(EDE.NSEC_MISSING, `the NSEC records do not prove that ${nameToText(qname)} has no ${qtype}`);
    return "secure";
  }

  private cached(key: string, compute: () => Promise<ZoneKeys>): Promise<ZoneKeys> {
    const hit = this.cache.get(key);
    if (hit !== undefined && hit.until > Date.now()) return Promise.resolve(hit.value);
    const running = this.pending.get(key);
    if (running !== undefined) return running;
    const p = compute()
      .then((value) => {
        if (this.cache.size >= ZONE_CACHE_ENTRIES) this.cache.clear();
        this.cache.set(key, { value, until: Date.now() + ZONE_CACHE_MS });
        return value;
      })
      .finally(() => this.pending.delete(key));
    this.pending.set(key, p);
    return p;
  }

  private ask(ctx: Ctx, name: Name, type: number): Promise<Message> {
    return ctx.fetch(upstreamQuestion(name, type, { dnssecOk: true, checkingDisabled: true }));
  }

  /** The validated DNSKEYs of a zone (a signer name), through DS records up to the anchor. */
  private zoneKeys(zone: Name, ctx: Ctx): Promise<ZoneKeys> {
    return this.cached(`keys:${nameKey(zone)}`, async () => {
      if (nameEquals(zone, ctx.anchor.owner)) return this.keysFromAnchor(ctx);
      if (!isSubdomain(zone, ctx.anchor.owner)) throw new Bogus(EDE.DNSSEC_BOGUS, `${nameToText(zone)} is outside the trust anchor`);
      const dsMsg = await this.ask(ctx, zone, TYPE.DS);
      const dsSet = rrsets(dsMsg.answers).find((s) => s.type === TYPE.DS && nameEquals(s.owner, zone));
      if (dsSet === undefined) {
        const proof = await this.checkDenial(dsMsg, zone, TYPE.DS, ctx);
        if (proof === "insecure" || this.delegationWithoutDs(dsMsg, zone)) return { status: "insecure" };
        throw new Bogus(EDE.DNSSEC_BOGUS, `${nameToText(zone)} signs records but its parent has no DS for it`);
      }
      if ((await this.checkRrset(dsSet, dsMsg.answers, dsMsg.authorities, ctx)) === "insecure") return { status: "insecure" };
      return this.keysFromDs(ctx, zone, dsSet.records.map((r) => parseDs(r.data)));
    });
  }

  /** An NSEC/NSEC3 at the name says: delegation (NS) without DS. */
  private delegationWithoutDs(msg: Message, zone: Name): boolean {
    for (const r of msg.authorities) {
      if (r.type === TYPE.NSEC && nameEquals(r.name, zone)) {
        const t = parseNsec(r.data).types;
        return t.has(TYPE.NS) && !t.has(TYPE.DS) && !t.has(TYPE.SOA);
      }
      if (r.type === TYPE.NSEC3) {
        const t = parseNsec3(r.data).types;
        if (t.has(TYPE.NS) && !t.has(TYPE.DS) && !t.has(TYPE.SOA)) return true;
      }
    }
    return false;
  }

  private async keysFromAnchor(ctx: Ctx): Promise<ZoneKeys> {
    const a = ctx.anchor;
    if (a.keys.length > 0 && a.ds.length === 0) return this.keysFromDnskeys(ctx, a.owner, (k) => a.keys.some((t) => t.data.equals(k.data)));
    return this.keysFromDs(ctx, a.owner, a.ds);
  }

  private keysFromDs(ctx: Ctx, zone: Name, ds: readonly ReturnType<typeof parseDs>[]): Promise<ZoneKeys> {
    const usable = ds.filter((d) => supportedAlgorithm(d.algorithm) && supportedDigest(d.digestType));
    // RFC 4035 §5.2: no DS we can use means the zone is treated as unsigned.
    if (usable.length === 0) return Promise.resolve({ status: "insecure" });
    return this.keysFromDnskeys(ctx, zone, (k) => usable.some((d) => d.keyTag === k.keyTag && d.algorithm === k.algorithm && dsDigest(zone, k.data, d.digestType)?.equals(d.digest) === true));
  }

  /** Fetches the zone's DNSKEY RRset and accepts it when a trusted key (per `trusted`) signed it. */
  private async keysFromDnskeys(ctx: Ctx, zone: Name, trusted: (k: Dnskey) => boolean): Promise<ZoneKeys> {
    const msg = await this.ask(ctx, zone, TYPE.DNSKEY);
    const set = rrsets(msg.answers).find((s) => s.type === TYPE.DNSKEY && nameEquals(s.owner, zone));
    if (set === undefined) throw new Bogus(EDE.DNSKEY_MISSING, `no DNSKEY for ${nameToText(zone)}`);
    const keys = set.records.map((r) => parseDnskey(r.data));
    const entry = keys.filter(trusted);
    if (entry.length === 0) throw new Bogus(EDE.DNSKEY_MISSING, `no DNSKEY of ${nameToText(zone)} matches its DS or trust anchor`);
    const sigs = signaturesFor(set, msg.answers).filter((s) => nameEquals(s.signer, zone));
    for (const sig of sigs) if (this.verify(set, sig, entry) === undefined) return { status: "secure", keys };
    throw new Bogus(EDE.DNSSEC_BOGUS, `the DNSKEY set of ${nameToText(zone)} is not signed by a trusted key`);
  }

  /**
   * The zone an unsigned RRset lives in: walks DS lookups from the anchor down to the name. A delegation
   * proven to have no DS makes it insecure; otherwise the name is in a signed zone (and unsigned data is bogus).
   */
  private zoneOf(name: Name, ctx: Ctx): Promise<ZoneKeys> {
    return this.cached(`cut:${nameKey(name)}`, async () => {
      const top = await this.zoneKeys(ctx.anchor.owner, ctx);
      if (top.status === "insecure") return top;
      const depth = labelCount(name) - labelCount(ctx.anchor.owner);
      let current: ZoneKeys = top;
      for (let i = Math.min(depth, MAX_WALK); i >= 1; i--) {
        const n = stripLabels(name, i - 1);
        const dsMsg = await this.ask(ctx, n, TYPE.DS);
        const dsSet = rrsets(dsMsg.answers).find((s) => s.type === TYPE.DS && nameEquals(s.owner, n));
        if (dsSet !== undefined) {
          current = await this.zoneKeys(n, ctx);
          if (current.status === "insecure") return current;
          continue;
        }
        if (dsMsg.rcode === RCODE.NXDOMAIN) break;
        if (this.delegationWithoutDs(dsMsg, n)) {
          // Only trust the "no DS" claim if its NSEC records are signed.
          const proof = await this.checkDenial(dsMsg, n, TYPE.DS, ctx);
          if (proof === "secure" || proof === "insecure") return { status: "insecure" };
        }
      }
      return current;
    });
  }
}
