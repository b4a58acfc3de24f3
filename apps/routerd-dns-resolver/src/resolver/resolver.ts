// The query pipeline. Fast path (synchronous, no decoding): parse the question, look the key up in the
// local-answer memo and the forwarding cache, patch and send. Slow path: local zones, then the forwarder
// whose match suffix is longest (coalesced: identical concurrent misses share one upstream query),
// DNSSEC validation when the forwarder asks for it, cache, answer. Stale answers cover for failing
// upstreams (RFC 8767); a hot answer near expiry is refreshed in the background.
import { AnswerCache } from "../cache/answer-cache.js";
import { renderAnswer, renderError, renderRecord, type RenderOptions } from "../cache/render.js";
import { buildStoredAnswer, recordOf, type StoredAnswer } from "../cache/stored-answer.js";
import { FLAG_AUTHORITATIVE, FLAG_NEGATIVE, FLAG_SECURE, TTL_PAIR, WireStore } from "../cache/wire-store.js";
import type { AnswerValidator, Validation } from "../dnssec/validation.js";
import { CLASS, EDE, FLAG, RCODE, TYPE, rcodeName, typeName } from "../wire/constants.js";
import { decodeMessage, type Message, type ResourceRecord } from "../wire/message.js";
import { nameKey, nameToText, type Name } from "../wire/name.js";
import { cacheKey, isProblem, keyBuffer, parseQuery, queryKey, udpLimit, type Query } from "../wire/query.js";
import { forward, Routes, type ForwardRule } from "../upstream/forwarder.js";
import { upstreamQuestion, type UpstreamQuestion } from "../upstream/question.js";
import { UpstreamError } from "../upstream/transport.js";
import type { ZoneStore } from "../zones/zone-store.js";
import type { QueryLog } from "./query-log.js";
import { ResolverStats } from "./stats.js";

export interface ClientInfo {
  address: string;
  port: number;
  protocol: "udp" | "tcp";
}

/**
 * Called once with the answer; `outcome` says where it came from (lookups and the query log use it), `to`
 * is the client it goes to. A server may pass the same (mutable) ClientInfo with every query and one
 * Reply for all of them: the resolver copies the client before answering later.
 */
export type Reply = (out: Buffer, outcome: Outcome | undefined, to: ClientInfo) => void;

/** How an answer came about (query log, lookup). */
export type AnswerSource = "local" | "cache" | "stale" | "upstream" | "refused" | "error";

/** Where an answer came from; `entry` is the answer when it was built for this query (not a stored hit). */
export interface Outcome {
  entry?: StoredAnswer;
  source: AnswerSource;
  upstream?: string;
  dnssec?: Validation["status"];
}

/** Where hits came from (shared: hits allocate nothing of their own). */
const CACHE_HIT: Outcome = Object.freeze({ source: "cache" });
const LOCAL_HIT: Outcome = Object.freeze({ source: "local" });

/** An outcome with a built answer (everything but cache and memo hits). */
export type Built = Outcome & { entry: StoredAnswer };

const LOCAL_MEMO_ENTRIES = 20_000;
/** Distinct questions on their way upstream at once; beyond it a flood of misses gets SERVFAIL at once. */
export const MAX_INFLIGHT = 2048;
const TCP_LIMIT = 65_535;
/** RFC 8482 §4.2: the synthesized answer to ANY. */
const HINFO_RFC8482 = Buffer.from([7, ...Buffer.from("RFC8482"), 0]);

export interface ResolverParts {
  zones: ZoneStore;
  rules: ForwardRule[];
  /** Validator for rules with dnssecValidate. */
  validator?: AnswerValidator;
  queryLog?: QueryLog;
}

export class Resolver {
  readonly stats = new ResolverStats();
  readonly cache: AnswerCache;
  /** Local-zone answers already built, by question key (cleared when the zones change). */
  private readonly local = new WireStore(LOCAL_MEMO_ENTRIES, LOCAL_MEMO_ENTRIES * 512);
  private readonly inflight = new Map<string, Promise<Built>>();
  /** The render options of a hit, reused: the hit path allocates only its answer (fewer young-generation GCs). */
  private readonly hitOptions: RenderOptions = { now: 0, limit: 0 };
  private zones: ZoneStore;
  private routes: Routes;
  private validator: AnswerValidator | undefined;
  queryLog: QueryLog | undefined;

  constructor(
    parts: ResolverParts,
    cache: AnswerCache,
    private readonly now: () => number = Date.now,
  ) {
    this.cache = cache;
    this.zones = parts.zones;
    this.routes = new Routes(parts.rules);
    this.validator = parts.validator;
    this.queryLog = parts.queryLog;
  }

  /** New zones, rules or validator (reload, DHCP names). The forwarding cache is kept. */
  update(parts: Partial<ResolverParts>): void {
    if (parts.zones !== undefined) {
      this.zones = parts.zones;
      this.local.clear();
    }
    if (parts.rules !== undefined) this.routes = new Routes(parts.rules);
    if ("validator" in parts) this.validator = parts.validator;
    if ("queryLog" in parts) this.queryLog = parts.queryLog;
  }

  get zoneStore(): ZoneStore {
    return this.zones;
  }

  /**
   * Answers one query: `reply` is called once, now or when the slow path finishes. Returns false for a
   * query dropped without an answer (a response, a runt).
   */
  handle(buf: Buffer, client: ClientInfo, reply: Reply): boolean {
    const stats = this.stats;
    stats.queries++;
    const started = this.queryLog === undefined ? 0 : performance.now();
    const q = parseQuery(buf);
    if (isProblem(q)) {
      if (q.drop) {
        stats.dropped++;
        return false;
      }
      if (q.rcode === RCODE.FORMERR) stats.formerr++;
      else stats.notimp++;
      reply(renderError(buf, undefined, q.rcode), undefined, client);
      return true;
    }
    if (q.edns && q.ednsVersion !== 0) {
      reply(renderError(buf, q, RCODE.BADVERS), undefined, client);
      return true;
    }
    const now = this.now();
    const limit = client.protocol === "udp" ? udpLimit(q) : TCP_LIMIT;
    const memo = this.local.find(keyBuffer, 0, q.keyLen, q.keyHash);
    if (memo >= 0) {
      stats.localAnswers++;
      this.sendRecord(buf, q, client, limit, reply, this.local, memo, "local", now, started);
      return true;
    }
    const cache = this.cache;
    if (cache.enabled) {
      const off = cache.lookup(keyBuffer, q.keyLen, q.keyHash, now);
      if (off >= 0 && cache.state === "fresh") {
        stats.cacheHits++;
        const prefetch = cache.prefetch;
        this.sendRecord(buf, q, client, limit, reply, cache.store, off, "cache", now, started);
        if (prefetch) this.prefetch(buf, q);
        return true;
      }
      if (off >= 0) {
        // Stale: keep a copy of the answer, the arena may reuse its bytes while upstreams are asked.
        const stale = this.copyRecord(cache.store, off, buf, q);
        this.slow(ownCopy(buf), { ...q }, queryKey(q), copyClient(client), limit, reply, stale, started).catch(() => this.stats.internalErrors++);
        return true;
      }
    }
    this.slow(ownCopy(buf), { ...q }, queryKey(q), copyClient(client), limit, reply, undefined, started).catch(() => this.stats.internalErrors++);
    return true;
  }

  private sendRecord(buf: Buffer, q: Query, client: ClientInfo, limit: number, reply: Reply, store: WireStore, off: number, source: AnswerSource, now: number, started: number): void {
    const opts = this.hitOptions;
    opts.now = now;
    opts.limit = limit;
    const out = renderRecord(store, off, buf, q, opts);
    if ((out[2]! & 0x02) !== 0) this.stats.truncated++;
    this.count(store.rcode(off));
    const outcome = source === "cache" ? CACHE_HIT : LOCAL_HIT;
    reply(out, outcome, client);
    if (this.queryLog !== undefined) this.log(buf, q, client, outcome, out, started);
  }

  /** A stored record as a built answer (for stale answers served after an await), the client's question put back. */
  private copyRecord(store: WireStore, off: number, query: Buffer, q: Query): StoredAnswer {
    const ws = store.wireStart(off);
    const wl = store.wireLen(off);
    const flags = store.flags(off);
    const a = store.arena;
    return {
      wire: Buffer.concat([a.subarray(ws, ws + 12), query.subarray(12, q.nameEnd + 4), a.subarray(ws + 12, ws + wl)]),
      ttlPairs: Buffer.from(a.subarray(ws + wl, ws + wl + store.ttlCount(off) * TTL_PAIR)),
      rcode: store.rcode(off),
      authoritative: (flags & FLAG_AUTHORITATIVE) !== 0,
      secure: (flags & FLAG_SECURE) !== 0,
      ede: store.ede(off),
      storedAt: store.storedAt(off),
      expiresAt: store.expiresAt(off),
      lifetime: store.lifetime(off),
      negative: (flags & FLAG_NEGATIVE) !== 0,
      cacheable: false,
    };
  }

  private send(buf: Buffer, q: Query, client: ClientInfo, limit: number, reply: Reply, o: Built, now: number, started: number, stale = false): void {
    const out = renderAnswer(o.entry, buf, q, { now, limit, stale });
    if ((out[2]! & 0x02) !== 0) this.stats.truncated++;
    this.count(o.entry.rcode);
    reply(out, o, client);
    if (this.queryLog !== undefined) this.log(buf, q, client, o, out, started);
  }

  private count(rcode: number): void {
    if (rcode === RCODE.NOERROR) return;
    if (rcode === RCODE.NXDOMAIN) this.stats.nxdomain++;
    else if (rcode === RCODE.SERVFAIL) this.stats.servfail++;
    else if (rcode === RCODE.REFUSED) this.stats.refused++;
  }

  private log(buf: Buffer, q: Query, client: ClientInfo, o: Pick<Outcome, "source" | "upstream" | "dnssec">, out: Buffer, started: number): void {
    this.queryLog?.write({
      time: new Date().toISOString(),
      client: client.address,
      protocol: client.protocol,
      name: nameToText(buf.subarray(12, q.nameEnd)),
      type: typeName(q.qtype),
      rcode: rcodeName(out[3]! & 0x0f),
      source: o.source,
      ...(o.upstream !== undefined ? { upstream: o.upstream } : {}),
      answers: out.readUInt16BE(6),
      ms: Math.round((performance.now() - started) * 1000) / 1000,
      ...(o.dnssec !== undefined ? { dnssec: o.dnssec } : {}),
    });
  }

  /** Refused before any work (a client outside the listener's sources). */
  refuse(buf: Buffer, client: ClientInfo, reply: Reply): boolean {
    this.stats.queries++;
    const q = parseQuery(buf);
    if (isProblem(q) && q.drop) return false;
    this.stats.refused++;
    reply(renderError(buf, isProblem(q) ? undefined : q, RCODE.REFUSED, EDE.PROHIBITED), undefined, client);
    if (this.queryLog !== undefined && !isProblem(q)) {
      this.queryLog.write({ time: new Date().toISOString(), client: client.address, protocol: client.protocol, name: nameToText(buf.subarray(12, q.nameEnd)), type: typeName(q.qtype), rcode: "REFUSED", source: "refused", answers: 0, ms: 0 });
    }
    return true;
  }

  private async slow(buf: Buffer, q: Query, key: string, client: ClientInfo, limit: number, reply: Reply, stale: StoredAnswer | undefined, started: number): Promise<void> {
    const qname = Buffer.from(buf.subarray(12, q.nameEnd));
    let outcome: Built;
    let serveStale = false;
    try {
      const special = this.special(q, qname, key);
      if (special !== undefined) {
        outcome = special;
      } else {
        const local = await this.fromZones(q, qname, key);
        if (local !== undefined) {
          outcome = local;
          if (local.source === "local" && local.entry.cacheable) {
            const k = Buffer.from(key, "latin1");
            this.local.set(k, 0, k.length, recordOf(local.entry));
          }
          if (local.source === "local") this.stats.localAnswers++;
        } else if (stale !== undefined) {
          [outcome, serveStale] = await this.refreshStale(q, qname, key, stale);
        } else {
          this.stats.cacheMisses++;
          outcome = await this.resolveForward(key, qname, q.qtype, q.dnssecOk, q.checkingDisabled);
        }
      }
    } catch (err) {
      outcome = this.failure(q, qname, key, err as Error);
    }
    this.send(buf, q, client, limit, reply, outcome, this.now(), started, serveStale);
  }

  /** Meta queries answered without looking anything up. */
  private special(q: Query, qname: Name, key: string): Built | undefined {
    if (q.qclass !== CLASS.IN) return this.synthesized(q, qname, RCODE.REFUSED, []);
    void key;
    if (q.qtype === TYPE.ANY) {
      return this.synthesized(q, qname, RCODE.NOERROR, [{ name: qname, type: TYPE.HINFO, class: CLASS.IN, ttl: 3600, data: HINFO_RFC8482 }]);
    }
    if (q.qtype === TYPE.AXFR || q.qtype === TYPE.IXFR || q.qtype === TYPE.MAILA || q.qtype === TYPE.MAILB) return this.synthesized(q, qname, RCODE.REFUSED, []);
    if (q.qtype === TYPE.OPT) return this.synthesized(q, qname, RCODE.FORMERR, []);
    return undefined;
  }

  private synthesized(q: Query, qname: Name, rcode: number, answers: ResourceRecord[], authorities: ResourceRecord[] = [], source: AnswerSource = "local"): Built {
    const msg: Message = { id: 0, flags: FLAG.QR, rcode, questions: [{ name: qname, type: q.qtype, class: q.qclass }], answers, authorities, additionals: [] };
    const entry = buildStoredAnswer(msg, { now: this.now(), dnssecOk: q.dnssecOk });
    entry.authoritative = false;
    entry.cacheable = false;
    return { entry, source };
  }

  /** Local zones; a CNAME chain that leaves them is completed through the forwarder. */
  private async fromZones(q: Query, qname: Name, key: string): Promise<Built | undefined> {
    const za = this.zones.lookup(qname, q.qtype);
    if (za === undefined) return undefined;
    const msg: Message = { id: 0, flags: FLAG.QR | FLAG.AA, rcode: za.rcode, questions: [{ name: qname, type: q.qtype, class: CLASS.IN }], answers: za.answers, authorities: za.authorities, additionals: [] };
    void key;
    if (za.chase === undefined) return { entry: buildStoredAnswer(msg, { now: this.now(), dnssecOk: q.dnssecOk }), source: "local" };
    const target = za.chase;
    const rest = await this.resolveForward(cacheKey(nameKey(target), q.qtype, CLASS.IN, q.dnssecOk, q.checkingDisabled), target, q.qtype, q.dnssecOk, q.checkingDisabled).catch(() => undefined);
    const tail = rest === undefined ? undefined : parseTail(rest.entry);
    const combined: Message = {
      ...msg,
      flags: FLAG.QR,
      rcode: tail?.rcode ?? RCODE.SERVFAIL,
      answers: [...za.answers, ...(tail?.answers ?? [])],
      authorities: tail?.authorities ?? [],
    };
    const entry = buildStoredAnswer(combined, { now: this.now(), dnssecOk: q.dnssecOk });
    entry.authoritative = false;
    entry.cacheable = false;
    return { entry, source: "upstream", ...(rest?.upstream !== undefined ? { upstream: rest.upstream } : {}) };
  }

  /** A stale entry: try upstreams first; if they fail, the stale answer (RFC 8767 §5). */
  private async refreshStale(q: Query, qname: Name, key: string, entry: StoredAnswer): Promise<[Built, boolean]> {
    try {
      const fresh = await this.resolveForward(key, qname, q.qtype, q.dnssecOk, q.checkingDisabled);
      if (fresh.entry.rcode !== RCODE.SERVFAIL) return [fresh, false];
    } catch {
      // fall through to the stale answer
    }
    this.stats.staleAnswers++;
    return [{ entry, source: "stale" }, true];
  }

  private prefetch(buf: Buffer, q: Query): void {
    const key = queryKey(q);
    if (this.inflight.has(key)) return;
    this.stats.prefetches++;
    const qname = Buffer.from(buf.subarray(12, q.nameEnd));
    this.resolveForward(key, qname, q.qtype, q.dnssecOk, q.checkingDisabled).catch(() => undefined);
  }

  private failure(q: Query, qname: Name, key: string, err: Error): Built {
    void key;
    if (err instanceof NoRoute) return this.synthesized(q, qname, RCODE.REFUSED, [], [], "refused");
    const reason = err instanceof UpstreamError ? err.reason : "";
    const ede = reason === "timeout" ? EDE.NO_REACHABLE_AUTHORITY : reason === "notReady" ? EDE.NOT_READY : EDE.NETWORK_ERROR;
    const o = this.synthesized(q, qname, RCODE.SERVFAIL, [], [], "error");
    o.entry.ede = ede;
    return o;
  }

  /**
   * The forwarded answer for a question, coalesced with any identical one already on its way, validated
   * when the rule wants it, and cached.
   */
  resolveForward(key: string, qname: Name, qtype: number, dnssecOk: boolean, checkingDisabled: boolean): Promise<Built> {
    const running = this.inflight.get(key);
    if (running !== undefined) {
      this.stats.coalesced++;
      return running;
    }
    const rule = this.routes.route(qname);
    if (rule === undefined) return Promise.reject(new NoRoute());
    if (rule.upstreams.length === 0) return Promise.reject(new UpstreamError("notReady", `forwarder ${rule.config.name} has no upstream address yet`));
    if (this.inflight.size >= MAX_INFLIGHT) {
      this.stats.overloaded++;
      return Promise.reject(new UpstreamError("overload", `${MAX_INFLIGHT} questions already on their way upstream`));
    }
    const p = this.forwardOnce(key, qname, qtype, dnssecOk, checkingDisabled, rule).finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private async forwardOnce(key: string, qname: Name, qtype: number, dnssecOk: boolean, checkingDisabled: boolean, rule: ForwardRule): Promise<Built> {
    const validate = rule.config.dnssecValidate && this.validator !== undefined && !checkingDisabled;
    const question = upstreamQuestion(qname, qtype, { dnssecOk: dnssecOk || validate, checkingDisabled: checkingDisabled || validate });
    const attemptMs = rule.config.healthcheck.timeoutMs;
    const { msg, upstream } = await forward(rule.upstreams, question, attemptMs);
    let verdict: Validation | undefined;
    if (validate && msg.rcode !== RCODE.SERVFAIL && msg.rcode !== RCODE.REFUSED) {
      verdict = await this.validator!.validate(msg, question, (sub: UpstreamQuestion) => forward(rule.upstreams, sub, attemptMs).then((f) => f.msg));
      if (verdict.status === "secure") this.stats.dnssecSecure++;
      if (verdict.status === "bogus") {
        this.stats.dnssecBogus++;
        const failed: Message = { id: 0, flags: FLAG.QR, rcode: RCODE.SERVFAIL, questions: msg.questions, answers: [], authorities: [], additionals: [] };
        const entry = buildStoredAnswer(failed, { now: this.now(), dnssecOk, policy: this.cache.policy, ede: verdict.ede ?? EDE.DNSSEC_BOGUS });
        return { entry, source: "upstream", upstream: upstream.name, dnssec: "bogus" };
      }
    }
    const entry = buildStoredAnswer(msg, { now: this.now(), dnssecOk, policy: this.cache.policy, secure: verdict?.status === "secure" });
    if (entry.cacheable) this.cache.save(key, entry);
    return { entry, source: "upstream", upstream: upstream.name, ...(verdict !== undefined ? { dnssec: verdict.status } : {}) };
  }

  /** Drops cached answers: all, or those for one name (any type). */
  flush(name?: Name): number {
    this.local.clear();
    if (name === undefined) return this.cache.flush();
    const prefix = Buffer.from(nameKey(name), "latin1");
    return this.cache.flush((k) => k.length === prefix.length + 5 && k.subarray(0, prefix.length).equals(prefix));
  }

  inflightCount(): number {
    return this.inflight.size;
  }
}

/**
 * The query in a slice of Node's shared buffer pool. A received datagram owns a C-heap block of its own;
 * held across an upstream round trip it can outlive a young-generation GC and then pins that block until
 * the next full one: a burst of misses left the C heap fragmented tens of MB larger than needed.
 */
function ownCopy(buf: Buffer): Buffer {
  return Buffer.from(buf);
}

function copyClient(c: ClientInfo): ClientInfo {
  return { address: c.address, port: c.port, protocol: c.protocol };
}

class NoRoute extends Error {
  constructor() {
    super("no forwarder matches this name");
  }
}

/** The records of a stored answer, for appending a forwarded tail to a local CNAME chain. */
function parseTail(entry: StoredAnswer): Pick<Message, "rcode" | "answers" | "authorities"> | undefined {
  try {
    // Stored answers are our own encoding: decoding cannot fail on a well-formed message.
    const msg = decodeStored(entry);
    return { rcode: msg.rcode, answers: msg.answers, authorities: msg.authorities };
  } catch {
    return undefined;
  }
}

function decodeStored(entry: StoredAnswer): Message {
  const buf = Buffer.from(entry.wire);
  buf.writeUInt16BE((buf.readUInt16BE(2) & ~0x000f) | (entry.rcode & 0x0f), 2);
  return decodeMessage(buf);
}
