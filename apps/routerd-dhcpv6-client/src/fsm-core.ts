// Building blocks of the client state machine: the transition context, exchanges with RFC 8415 §15
// retransmission, and the lease timers. Everything here is pure apart from the injected random source.
import { IRT_DEFAULT_S, IRT_MINIMUM_S, messageTypeName } from "./constants.js";
import type { ClientEvent } from "./events.js";
import type { Advert, Exchange, FsmAction, FsmEnv, FsmState, LogLevel, Phase, TimerName } from "./fsm-types.js";
import {
  isEmpty,
  leaseIas,
  leaseValidUntil,
  nextExpiry,
  prefixKey,
  pruneExpired,
  sameInformation,
  timerAt,
  type IaView,
  type Information,
  type MergeResult,
} from "./lease.js";
import { buildMessage, chooseHint, solicitIas } from "./messages.js";
import type { Dhcp6Option } from "./options.js";
import { randomXid } from "./random.js";
import { RETRANSMISSION, VERIFY_REBIND, exhausted, initialRt, nextRt, waitUntil, type ExchangeKind } from "./retransmit.js";

const PHASE_OF: Record<ExchangeKind, Phase> = {
  solicit: "solicit",
  request: "request",
  renew: "renew",
  rebind: "rebind",
  release: "release",
  "information-request": "information",
};

const ALL_TIMERS: TimerName[] = ["exchange", "renew", "rebind", "expire", "refresh"];

/** One transition in progress: a private copy of the state plus the actions it produces. */
export class Ctx {
  readonly actions: FsmAction[] = [];
  state: FsmState;

  constructor(
    state: FsmState,
    readonly env: FsmEnv,
    readonly now: number,
  ) {
    this.state = { ...state };
  }

  get cfg() {
    return this.env.config;
  }

  emit(event: ClientEvent): void {
    this.actions.push({ type: "emit", event });
  }

  log(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
    this.actions.push({ type: "log", level, msg, fields });
  }

  timer(name: TimerName, at: number): void {
    if (Number.isFinite(at)) this.actions.push({ type: "set-timer", name, at });
    else this.cancel(name);
  }

  cancel(name: TimerName): void {
    this.actions.push({ type: "cancel-timer", name });
  }

  persist(): void {
    this.actions.push({ type: "persist", lease: this.state.lease, lastPrefix: this.state.lastPrefix });
  }
}

export interface ExchangeOptions {
  ias: Dhcp6Option[];
  serverId?: Uint8Array;
  delayMs?: number;
  mrdMs?: number;
  /** Rebind verifying a stored lease, with the Confirm retransmission parameters. */
  verify?: boolean;
}

export function beginExchange(ctx: Ctx, kind: ExchangeKind, opts: ExchangeOptions): void {
  const params = opts.verify ? { ...VERIFY_REBIND } : { ...RETRANSMISSION[kind] };
  if (kind === "solicit" && ctx.state.solMaxRtMs) params.mrtMs = ctx.state.solMaxRtMs;
  if (kind === "information-request" && ctx.state.infMaxRtMs) params.mrtMs = ctx.state.infMaxRtMs;
  if (opts.mrdMs !== undefined) params.mrdMs = opts.mrdMs;
  const ex: Exchange = { kind, xid: randomXid(ctx.env.rng), params, count: 0, rtMs: 0, ias: opts.ias };
  if (opts.serverId) ex.serverId = opts.serverId;
  if (opts.verify) ex.verify = true;
  if (kind === "solicit") ex.adverts = [];
  ctx.state.exchange = ex;
  ctx.state.phase = PHASE_OF[kind];
  const delay = opts.delayMs ?? 0;
  if (delay > 0) {
    ctx.log("debug", "delaying first transmission", { exchange: kind, delayMs: Math.round(delay) });
    ctx.timer("exchange", ctx.now + delay);
  } else transmit(ctx);
}

/** Sends (or re-sends) the current exchange's message and arms the retransmission timer. */
export function transmit(ctx: Ctx): void {
  const prev = ctx.state.exchange;
  if (!prev) return;
  const count = prev.count + 1;
  const rtMs = count === 1 ? initialRt(prev.params, ctx.env.rng, prev.kind === "solicit") : nextRt(prev.rtMs, prev.params, ctx.env.rng);
  const ex: Exchange = { ...prev, startedAt: prev.startedAt ?? ctx.now, count, rtMs };
  ctx.state.exchange = ex;
  const message = buildMessage(ex, ctx.cfg, ctx.now);
  ctx.actions.push({ type: "send", message, exchange: ex.kind, attempt: count });
  ctx.log("debug", "transmit", { message: messageTypeName(message.type), xid: ex.xid, attempt: count, rtMs: Math.round(rtMs) });
  ctx.timer("exchange", waitUntil({ startedAt: ex.startedAt ?? ctx.now, count, rtMs }, ex.params, ctx.now));
}

/** Highest preference wins; ties go to the server offering more leases, then to the earliest. */
export function bestAdvert(adverts: Advert[]): Advert | undefined {
  let best: Advert | undefined;
  for (const a of adverts) {
    if (!best || a.preference > best.preference || (a.preference === best.preference && a.usable > best.usable)) best = a;
  }
  return best;
}

export function onExchangeTimer(ctx: Ctx): void {
  const ex = ctx.state.exchange;
  if (!ex) return;
  if (ex.count === 0) return transmit(ctx);
  if (ex.kind === "solicit" && !ex.firstRtDone) {
    ctx.state.exchange = { ...ex, firstRtDone: true };
    const best = bestAdvert(ex.adverts ?? []);
    if (best) return startRequest(ctx, best);
  }
  const current = ctx.state.exchange!;
  const progress = { startedAt: current.startedAt ?? ctx.now, count: current.count, rtMs: current.rtMs };
  if (exhausted(progress, current.params, ctx.now)) return failExchange(ctx, current);
  transmit(ctx);
}

const FAILURES: Partial<Record<ExchangeKind, (ctx: Ctx, ex: Exchange) => void>> = {
  request(ctx, ex) {
    ctx.log("warn", "no usable reply to REQUEST; back to SOLICIT", { attempts: ex.count });
    restartSolicit(ctx, true);
  },
  renew: (ctx) => startRebind(ctx),
  rebind(ctx, ex) {
    if (ex.verify) {
      // Like an unanswered Confirm: keep using the leases with their last known lifetimes (§18.2.3).
      ctx.log("info", "no reply while verifying the stored lease; keep using it", {});
      return keepVerifiedLease(ctx);
    }
    ctx.log("warn", "no reply to REBIND before the leases ran out", {});
    expireAll(ctx);
  },
  release(ctx, ex) {
    ctx.log("info", "no reply to RELEASE; leases are given up anyway", { attempts: ex.count });
    finishRelease(ctx);
  },
};

function failExchange(ctx: Ctx, ex: Exchange): void {
  const handler = FAILURES[ex.kind];
  if (handler) handler(ctx, ex);
  else transmit(ctx);
}

export function startSolicit(ctx: Ctx, delayMs: number): void {
  const hint = chooseHint(ctx.cfg, ctx.state.lastPrefix, ctx.state.hintRejected === true);
  beginExchange(ctx, "solicit", { ias: solicitIas(ctx.cfg, hint), delayMs });
}

/** Back to server discovery. With backoff, repeated failures are spaced out up to SOL_MAX_RT. */
export function restartSolicit(ctx: Ctx, backoff: boolean): void {
  let delay = 0;
  if (backoff) {
    ctx.state.failures += 1;
    const cap = ctx.state.solMaxRtMs ?? RETRANSMISSION.solicit.mrtMs;
    delay = Math.min(cap, 1000 * 2 ** Math.min(ctx.state.failures - 1, 12)) * (1 + 0.1 * ctx.env.rng.next());
  }
  startSolicit(ctx, delay);
}

/** Request for the leases of an Advertise (lifetimes are hints, sent as 0), plus wanted IAs it lacked. */
export function startRequest(ctx: Ctx, advert: Advert): void {
  const ias: Dhcp6Option[] = [];
  const offered = (type: IaView["type"]): IaView | undefined => advert.ias.find((ia) => ia.type === type);
  if (ctx.cfg.pd) {
    const options: Dhcp6Option[] = (offered("ia-pd")?.prefixes ?? [])
      .filter((p) => p.validLifetime > 0)
      .map((p) => ({ kind: "ia-prefix", preferred: 0, valid: 0, prefixLength: p.length, prefix: p.prefix, options: [] }));
    ias.push({ kind: "ia-pd", iaid: ctx.cfg.pd.iaid, t1: 0, t2: 0, options });
  }
  if (ctx.cfg.na) {
    const options: Dhcp6Option[] = (offered("ia-na")?.addresses ?? [])
      .filter((a) => a.validLifetime > 0)
      .map((a) => ({ kind: "ia-addr", address: a.address, preferred: 0, valid: 0, options: [] }));
    ias.push({ kind: "ia-na", iaid: ctx.cfg.na.iaid, t1: 0, t2: 0, options });
  }
  beginExchange(ctx, "request", { ias, serverId: advert.serverId });
}

function currentIas(ctx: Ctx): Dhcp6Option[] {
  return ctx.state.lease ? leaseIas(ctx.state.lease, ctx.cfg.pd?.iaid, ctx.cfg.na?.iaid) : [];
}

export function startRenew(ctx: Ctx): void {
  const lease = ctx.state.lease;
  if (!lease) return restartSolicit(ctx, false);
  if (ctx.now >= timerAt(lease, lease.t2)) return startRebind(ctx);
  // MRD = time left until T2; the "rebind" timer ends the exchange there (§18.2.4).
  beginExchange(ctx, "renew", { ias: currentIas(ctx), serverId: hexBytes(lease.serverId) });
}

export function startRebind(ctx: Ctx): void {
  const lease = ctx.state.lease;
  if (!lease) return restartSolicit(ctx, false);
  const until = leaseValidUntil(lease);
  if (until <= ctx.now) return expireAll(ctx);
  // MRD = time until the last valid lifetime ends (§18.2.5); infinite leases rebind forever.
  beginExchange(ctx, "rebind", { ias: currentIas(ctx), mrdMs: Number.isFinite(until) ? until - ctx.now : 0 });
}

/**
 * After a restart with a stored lease, or when the link may have changed: Rebind the leases with the
 * Confirm parameters instead of starting over (§18.2.12). Returns false when there is nothing to verify.
 */
export function startVerify(ctx: Ctx, delayMs: number): boolean {
  const lease = ctx.state.lease;
  if (!lease) return false;
  const { lease: live } = pruneExpired(lease, ctx.now);
  const ias = leaseIas(live, ctx.cfg.pd?.iaid, ctx.cfg.na?.iaid);
  if (ias.length === 0) return false;
  ctx.state.lease = live;
  ctx.timer("expire", nextExpiry(live));
  ctx.log("info", "verifying the stored lease with REBIND", { prefixes: live.prefixes.map(prefixKey), addresses: live.addresses.map((a) => a.address) });
  beginExchange(ctx, "rebind", { ias, delayMs, verify: true });
  return true;
}

function keepVerifiedLease(ctx: Ctx): void {
  const lease = ctx.state.lease;
  ctx.state.exchange = undefined;
  ctx.cancel("exchange");
  if (!lease || isEmpty(lease)) return expireAll(ctx);
  ctx.state.phase = "bound";
  if (!ctx.state.announced) {
    ctx.state.announced = true;
    ctx.emit({ type: "acquired", lease });
  }
  scheduleLeaseTimers(ctx);
}

/** Request to reinstate bindings the server has lost (NoBinding in a Reply to Renew/Rebind, §18.2.10.1). */
export function startRebindingRequest(ctx: Ctx, serverId: Uint8Array): void {
  beginExchange(ctx, "request", { ias: currentIas(ctx), serverId });
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

function firstPrefix(ctx: Ctx): void {
  const p = ctx.state.lease?.prefixes[0];
  if (p) ctx.state.lastPrefix = { prefix: p.prefix, length: p.length };
}

export function scheduleLeaseTimers(ctx: Ctx): void {
  const lease = ctx.state.lease;
  if (!lease) {
    for (const t of ["renew", "rebind", "expire"] as const) ctx.cancel(t);
    return;
  }
  ctx.timer("renew", timerAt(lease, lease.t1));
  ctx.timer("rebind", timerAt(lease, lease.t2));
  ctx.timer("expire", nextExpiry(lease));
}

/** Emits "information" when it changed; the first time only if non-empty, unless `always` (stateless mode). */
export function noteInformation(ctx: Ctx, info: Information, always = false): void {
  const prev = ctx.state.information;
  ctx.state.information = info;
  const empty = info.dnsServers.length + info.domainSearch.length + info.sntpServers.length === 0 && !info.aftrName;
  if (prev ? !sameInformation(prev, info) : always || !empty) ctx.emit({ type: "information", information: info });
}

/** A Reply gave us (new) lease state: emit what changed, persist, arm T1/T2/expiry. */
export function applyMerge(ctx: Ctx, merge: MergeResult, via: "renew" | "rebind" | "request"): void {
  const firstReport = !ctx.state.announced;
  ctx.state.exchange = undefined;
  ctx.cancel("exchange");
  if (merge.change === "lost") {
    ctx.state.lease = undefined;
    ctx.state.announced = false;
    ctx.persist();
    ctx.emit({ type: "lost", reason: "server set every valid lifetime to 0", removed: merge.removed });
    scheduleLeaseTimers(ctx);
    return restartSolicit(ctx, true);
  }
  ctx.state.lease = merge.lease;
  ctx.state.phase = "bound";
  ctx.state.failures = 0;
  ctx.state.hintRejected = false;
  ctx.state.announced = true;
  firstPrefix(ctx);
  // Persist before announcing: whoever acts on the event can rely on the state dir.
  ctx.persist();
  // The first binding this process reports is "acquired", even when it continues a stored lease.
  if (merge.change === "acquired" || firstReport) ctx.emit({ type: "acquired", lease: merge.lease });
  else if (merge.change === "renewed") ctx.emit({ type: "renewed", via, lease: merge.lease });
  else ctx.emit({ type: "changed", added: merge.added, removed: merge.removed, lease: merge.lease });
  noteInformation(ctx, merge.lease.information);
  scheduleLeaseTimers(ctx);
}

/** Expiry timer: drop leases whose valid lifetime ended; all gone means back to Solicit. */
export function onExpireTimer(ctx: Ctx): void {
  const lease = ctx.state.lease;
  if (!lease) return;
  const { lease: kept, removed } = pruneExpired(lease, ctx.now);
  if (removed.length === 0) return ctx.timer("expire", nextExpiry(lease));
  if (!isEmpty(kept)) {
    ctx.state.lease = kept;
    ctx.persist();
    ctx.emit({ type: "changed", added: [], removed, lease: kept });
    return ctx.timer("expire", nextExpiry(kept));
  }
  expireAll(ctx);
}

function expireAll(ctx: Ctx): void {
  const lease = ctx.state.lease;
  const removed = lease ? [...lease.prefixes.map(prefixKey), ...lease.addresses.map((a) => a.address)] : [];
  ctx.state.lease = undefined;
  ctx.state.announced = false;
  ctx.persist();
  ctx.emit({ type: "expired", removed });
  scheduleLeaseTimers(ctx);
  // Keep an acquisition already under way (Solicit/Request); otherwise start one.
  const phase = ctx.state.phase;
  if (phase !== "solicit" && phase !== "request") restartSolicit(ctx, false);
}

export function startRelease(ctx: Ctx, then: "stop" | "idle"): void {
  const lease = ctx.state.lease;
  ctx.state.afterRelease = then;
  for (const t of ["renew", "rebind", "expire", "refresh"] as const) ctx.cancel(t);
  if (!lease || ctx.cfg.mode === "information-only") return finishRelease(ctx);
  const ias = currentIas(ctx);
  const removed = [...lease.prefixes.map(prefixKey), ...lease.addresses.map((a) => a.address)];
  // The client stops using the leases before the Release exchange begins (§18.2.7).
  ctx.state.lease = undefined;
  ctx.state.announced = false;
  ctx.persist();
  ctx.emit({ type: "released", removed });
  beginExchange(ctx, "release", { ias, serverId: hexBytes(lease.serverId) });
}

export function finishRelease(ctx: Ctx): void {
  ctx.state.exchange = undefined;
  ctx.cancel("exchange");
  if (ctx.state.afterRelease === "idle") {
    ctx.state.phase = "idle";
    return;
  }
  toStopped(ctx);
}

export function toStopped(ctx: Ctx): void {
  for (const t of ALL_TIMERS) ctx.cancel(t);
  ctx.state.exchange = undefined;
  ctx.state.phase = "stopped";
  ctx.actions.push({ type: "stopped" });
}

export function refreshDelayMs(seconds: number | undefined): number {
  return Math.max(IRT_MINIMUM_S, seconds ?? IRT_DEFAULT_S) * 1000;
}
