// The RFC 2131 §4.4 client state machine as a pure function: (state, event) -> (state, actions).
// Time comes in with each event and randomness through cfg.rng, so every path is testable without sockets.
// Exchanges live in fsm-exchanges.ts, reply handling in fsm-replies.ts, types in fsm-types.ts.
import { checkReply } from "./codec.js";
import { buildDecline } from "./client-messages.js";
import {
  beginDiscover,
  beginExtend,
  beginReboot,
  emit,
  enterBound,
  ignore,
  loseLease,
  send,
  sendDiscover,
  sendExtendRequest,
  sendRebootRequest,
  sendReleaseFor,
  sendSelectingRequest,
} from "./fsm-exchanges.js";
import { PACKET_HANDLERS } from "./fsm-replies.js";
import type { ClientState, Ctx, FsmConfig, FsmEvent, TimerName, Transition } from "./fsm-types.js";
import { isExpired, type DhcpLease } from "./lease.js";
import { messageTypeName } from "./options.js";

export function initialState(requestedAddress?: string): ClientState {
  return {
    phase: "idle",
    xid: 0,
    attempt: 0,
    exchangeStartedAt: 0,
    requestSentAt: 0,
    offer: null,
    lease: null,
    pending: null,
    hint: requestedAddress ?? null,
    nakCount: 0,
    deadlines: {},
  };
}

export function step(state: ClientState, event: FsmEvent, cfg: FsmConfig): Transition {
  const ctx: Ctx = { s: { ...state, deadlines: { ...state.deadlines } }, actions: [], cfg, now: event.now };
  EVENT_HANDLERS[event.type](ctx, event as never);
  return { state: ctx.s, actions: ctx.actions };
}

// ---- timer handlers ----

type TimerHandler = (ctx: Ctx) => void;

function retransmit(ctx: Ctx): void {
  const next = ctx.s.attempt + 1;
  switch (ctx.s.phase) {
    case "selecting":
      ctx.s.attempt = next;
      return sendDiscover(ctx);
    case "requesting":
      if (next >= ctx.cfg.requestAttempts) return beginDiscover(ctx);
      ctx.s.attempt = next;
      return sendSelectingRequest(ctx);
    case "rebooting":
      if (next >= ctx.cfg.rebootAttempts) return rebootUnanswered(ctx);
      ctx.s.attempt = next;
      return sendRebootRequest(ctx);
    case "renewing":
    case "rebinding":
      ctx.s.attempt = next;
      return sendExtendRequest(ctx);
    default:
      delete ctx.s.deadlines.retransmit;
  }
}

/** RFC 2131 §3.2 step 5: with no answer the client may keep using an unexpired lease. */
function rebootUnanswered(ctx: Ctx): void {
  const lease = ctx.s.lease as DhcpLease;
  if (!isExpired(lease, ctx.now)) return enterBound(ctx, lease, "bound", true);
  ctx.actions.push({ type: "persist", lease: null });
  ctx.s.hint = lease.address;
  beginDiscover(ctx);
}

const TIMER_HANDLERS: Record<TimerName, TimerHandler> = {
  retransmit,
  renew: (ctx) => {
    if (ctx.s.phase === "bound") beginExtend(ctx, "renewing");
  },
  rebind: (ctx) => {
    if (ctx.s.phase !== "bound" && ctx.s.phase !== "renewing") return;
    emit(ctx, { type: "rebinding", lease: ctx.s.lease as DhcpLease });
    beginExtend(ctx, "rebinding");
  },
  expire: (ctx) => {
    const lease = ctx.s.lease;
    if (!lease || !["bound", "renewing", "rebinding"].includes(ctx.s.phase)) return;
    emit(ctx, { type: "expired", lease });
    loseLease(ctx, "expired");
    ctx.s.hint = lease.address;
    beginDiscover(ctx);
  },
  restart: (ctx) => {
    if (ctx.s.phase === "init") beginDiscover(ctx);
  },
};

// ---- event handlers ----

type Handlers = { [K in FsmEvent["type"]]: (ctx: Ctx, ev: Extract<FsmEvent, { type: K }>) => void };

const EVENT_HANDLERS: Handlers = {
  start(ctx, ev) {
    if (ctx.s.phase !== "idle" && ctx.s.phase !== "stopped") return ignore(ctx, `already running (${ctx.s.phase})`);
    const stored = ev.storedLease;
    if (stored && !isExpired(stored, ctx.now)) return beginReboot(ctx, stored);
    if (stored) {
      ctx.actions.push({ type: "persist", lease: null });
      ctx.s.hint = stored.address;
    }
    beginDiscover(ctx);
  },

  packet(ctx, ev) {
    const handlers = PACKET_HANDLERS[ctx.s.phase];
    if (!handlers) return ignore(ctx, `not waiting for a reply in ${ctx.s.phase}`);
    const check = checkReply(ev.message, ctx.s.xid, ctx.cfg.mac);
    if (!check.ok) return ignore(ctx, check.reason);
    const handler = handlers[check.type];
    if (!handler) return ignore(ctx, `unexpected ${messageTypeName(check.type)} in ${ctx.s.phase}`);
    handler(ctx, ev.message);
  },

  timer(ctx, ev) {
    const due = ctx.s.deadlines[ev.timer];
    if (due === undefined || due > ctx.now) return ignore(ctx, `stale ${ev.timer} timer`);
    delete ctx.s.deadlines[ev.timer];
    TIMER_HANDLERS[ev.timer](ctx);
  },

  "probe-result"(ctx, ev) {
    const pending = ctx.s.pending;
    if (ctx.s.phase !== "checking" || !pending || pending.address !== ev.address) return ignore(ctx, "stale probe result");
    if (!ev.inUse) return enterBound(ctx, pending, "bound");
    send(ctx, "DECLINE", buildDecline(ctx.cfg, ctx.s.xid, pending.address, pending.serverId));
    emit(ctx, { type: "declined", address: pending.address, serverId: pending.serverId, reason: "address in use" });
    ctx.actions.push({ type: "persist", lease: null });
    ctx.s.phase = "init";
    ctx.s.pending = null;
    ctx.s.hint = null;
    ctx.s.deadlines = { restart: ctx.now + ctx.cfg.declineWaitMs };
  },

  renew(ctx) {
    switch (ctx.s.phase) {
      case "idle":
      case "init":
        return beginDiscover(ctx);
      case "bound":
      case "renewing":
        return beginExtend(ctx, "renewing");
      case "rebinding":
        return beginExtend(ctx, "rebinding");
      default:
        return ignore(ctx, `renew not possible in ${ctx.s.phase}`);
    }
  },

  release(ctx) {
    if (!sendReleaseFor(ctx)) return ignore(ctx, "no lease to release");
    ctx.s.phase = "idle";
    ctx.s.deadlines = {};
  },

  stop(ctx, ev) {
    if (ev.release) sendReleaseFor(ctx);
    ctx.s.phase = "stopped";
    ctx.s.pending = null;
    ctx.s.deadlines = {};
  },
};

