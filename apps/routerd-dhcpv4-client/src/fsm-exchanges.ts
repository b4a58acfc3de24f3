// The exchanges of RFC 2131 §4.4 as steps on a draft state: each starts or continues one exchange,
// queues what to send and sets the deadlines the engine turns into timers.
import type { OutgoingMessage } from "./codec.js";
import {
  buildDiscover,
  buildExtendRequest,
  buildRebootRequest,
  buildRelease,
  buildSelectingRequest,
} from "./client-messages.js";
import type { ClientState, Ctx, LeaseEvent, Phase } from "./fsm-types.js";
import { BROADCAST_ADDRESS } from "./ipv4.js";
import type { DhcpLease } from "./lease.js";
import { backoffDelay, halfRemainingDelay } from "./retransmit.js";

export function ignore(ctx: Ctx, reason: string): void {
  ctx.actions.push({ type: "ignored", reason });
}

export function emit(ctx: Ctx, event: LeaseEvent): void {
  ctx.actions.push({ type: "emit", event });
}

export function send(ctx: Ctx, what: string, message: OutgoingMessage, to = BROADCAST_ADDRESS): void {
  ctx.actions.push({ type: "send", what, message, to });
}

export function newXid(ctx: Ctx): number {
  return Math.floor(ctx.cfg.rng() * 0x100000000) >>> 0;
}

export function secs(ctx: Ctx): number {
  return Math.min(0xffff, Math.max(0, Math.floor((ctx.now - ctx.s.exchangeStartedAt) / 1000)));
}

export function startExchange(ctx: Ctx, phase: Phase): void {
  ctx.s.phase = phase;
  ctx.s.xid = newXid(ctx);
  ctx.s.attempt = 0;
  ctx.s.exchangeStartedAt = ctx.now;
  ctx.s.requestSentAt = ctx.now;
}

export function armBackoff(ctx: Ctx): void {
  ctx.s.deadlines.retransmit = ctx.now + backoffDelay(ctx.s.attempt, ctx.cfg.retransmit, ctx.cfg.rng);
}

export function leaseDeadlines(lease: DhcpLease): ClientState["deadlines"] {
  const d: ClientState["deadlines"] = {};
  if (lease.renewAt !== null) d.renew = lease.renewAt;
  if (lease.rebindAt !== null) d.rebind = lease.rebindAt;
  if (lease.expiresAt !== null) d.expire = lease.expiresAt;
  return d;
}

export function beginDiscover(ctx: Ctx): void {
  startExchange(ctx, "selecting");
  ctx.s.offer = null;
  ctx.s.lease = null;
  ctx.s.pending = null;
  ctx.s.deadlines = {};
  sendDiscover(ctx);
}

export function sendDiscover(ctx: Ctx): void {
  send(ctx, "DISCOVER", buildDiscover(ctx.cfg, ctx.s.xid, secs(ctx), ctx.s.hint ?? undefined));
  armBackoff(ctx);
}

export function beginRequest(ctx: Ctx, offer: { address: string; serverId: string }): void {
  ctx.s.phase = "requesting";
  ctx.s.offer = offer;
  ctx.s.attempt = 0;
  ctx.s.requestSentAt = ctx.now;
  sendSelectingRequest(ctx);
}

export function sendSelectingRequest(ctx: Ctx): void {
  const offer = ctx.s.offer as { address: string; serverId: string };
  send(ctx, "REQUEST(selecting)", buildSelectingRequest(ctx.cfg, ctx.s.xid, secs(ctx), offer.address, offer.serverId));
  armBackoff(ctx);
}

export function beginReboot(ctx: Ctx, lease: DhcpLease): void {
  startExchange(ctx, "rebooting");
  ctx.s.lease = lease;
  ctx.s.deadlines = {};
  sendRebootRequest(ctx);
}

export function sendRebootRequest(ctx: Ctx): void {
  const lease = ctx.s.lease as DhcpLease;
  send(ctx, "REQUEST(init-reboot)", buildRebootRequest(ctx.cfg, ctx.s.xid, secs(ctx), lease.address));
  armBackoff(ctx);
}

export function beginExtend(ctx: Ctx, phase: "renewing" | "rebinding"): void {
  const lease = ctx.s.lease as DhcpLease;
  startExchange(ctx, phase);
  const d = leaseDeadlines(lease);
  delete d.renew;
  if (phase === "rebinding") delete d.rebind;
  ctx.s.deadlines = d;
  sendExtendRequest(ctx);
}

export function sendExtendRequest(ctx: Ctx): void {
  const lease = ctx.s.lease as DhcpLease;
  const renewing = ctx.s.phase === "renewing";
  send(
    ctx,
    renewing ? "REQUEST(renewing)" : "REQUEST(rebinding)",
    buildExtendRequest(ctx.cfg, ctx.s.xid, secs(ctx), lease),
    renewing ? lease.serverId : BROADCAST_ADDRESS,
  );
  const until = renewing ? lease.rebindAt : lease.expiresAt;
  if (until === null) armBackoff(ctx);
  else ctx.s.deadlines.retransmit = ctx.now + halfRemainingDelay(ctx.now, until, ctx.cfg.renewRetransmitMinMs);
}

export function enterBound(ctx: Ctx, lease: DhcpLease, type: "bound" | "renewed", resumed = false): void {
  ctx.s.phase = "bound";
  ctx.s.lease = lease;
  ctx.s.pending = null;
  ctx.s.offer = null;
  ctx.s.nakCount = 0;
  ctx.s.hint = lease.address;
  ctx.s.deadlines = leaseDeadlines(lease);
  ctx.actions.push({ type: "persist", lease });
  emit(ctx, resumed ? { type, lease, resumed } : { type, lease });
}

export function loseLease(ctx: Ctx, reason: string): void {
  const lease = ctx.s.lease;
  if (lease) emit(ctx, { type: "lost", lease, reason });
  ctx.actions.push({ type: "persist", lease: null });
  ctx.s.lease = null;
  ctx.s.deadlines = {};
}

/** Restart after a NAK at once; repeated NAKs back off so a confused server is not flooded. */
export function restartAfterNak(ctx: Ctx): void {
  ctx.s.nakCount += 1;
  ctx.s.hint = null;
  if (ctx.s.nakCount === 1) {
    beginDiscover(ctx);
    return;
  }
  ctx.s.phase = "init";
  ctx.s.lease = null;
  ctx.s.deadlines = { restart: ctx.now + backoffDelay(ctx.s.nakCount - 2, ctx.cfg.retransmit, ctx.cfg.rng) };
}

export function sendReleaseFor(ctx: Ctx): boolean {
  const lease = ctx.s.lease;
  if (!lease || !["bound", "renewing", "rebinding"].includes(ctx.s.phase)) return false;
  send(ctx, "RELEASE", buildRelease(ctx.cfg, newXid(ctx), lease), lease.serverId);
  emit(ctx, { type: "released", lease });
  ctx.actions.push({ type: "persist", lease: null });
  ctx.s.lease = null;
  ctx.s.hint = lease.address;
  return true;
}
