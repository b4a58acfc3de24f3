// The DHCPv6 client state machine: (state, event) → new state + actions. No I/O and no clock of its own:
// time arrives in each event, randomness through env.rng, so every path is reproducible in unit tests.
import {
  Ctx,
  beginExchange,
  onExchangeTimer,
  onExpireTimer,
  startRebind,
  startRelease,
  startRenew,
  startSolicit,
  startVerify,
  toStopped,
  transmit,
} from "./fsm-core.js";
import { onPacket } from "./fsm-replies.js";
import type { FsmEnv, FsmEvent, FsmState, PrefixHint, StepResult, TimerName } from "./fsm-types.js";
import type { Lease } from "./lease.js";

/** A fresh machine; a stored lease is verified with Rebind on start, the last prefix becomes the hint. */
export function initialState(restored: { lastPrefix?: PrefixHint; lease?: Lease } = {}): FsmState {
  const state: FsmState = { phase: "init", failures: 0 };
  if (restored.lastPrefix) state.lastPrefix = restored.lastPrefix;
  if (restored.lease) state.lease = restored.lease;
  return state;
}

function firstDelay(ctx: Ctx): number {
  return ctx.cfg.solicitMaxDelayMs > 0 ? ctx.env.rng.next() * ctx.cfg.solicitMaxDelayMs : 0;
}

function begin(ctx: Ctx, delayMs: number): void {
  if (ctx.cfg.mode === "information-only") return beginExchange(ctx, "information-request", { ias: [], delayMs });
  startSolicit(ctx, delayMs);
}

function onStart(ctx: Ctx): void {
  const delay = firstDelay(ctx);
  if (ctx.cfg.mode === "stateful" && lengthUnchanged(ctx) && startVerify(ctx, delay)) return;
  ctx.state.lease = undefined;
  begin(ctx, delay);
}

/** A stored lease of another prefix length than now configured is not worth keeping. */
function lengthUnchanged(ctx: Ctx): boolean {
  const want = ctx.cfg.pd?.hint?.length ?? ctx.cfg.pd?.prefixLength;
  return want === undefined || (ctx.state.lease?.prefixes ?? []).every((p) => p.length === want);
}

/** The socket came back (interface re-created, address changed): verify the binding as after a restart. */
function onLinkChange(ctx: Ctx): void {
  const phase = ctx.state.phase;
  if ((phase === "bound" || phase === "renew" || phase === "rebind") && startVerify(ctx, 0)) return;
  onRenewRequest(ctx);
}

const TIMERS: Record<TimerName, (ctx: Ctx) => void> = {
  exchange: onExchangeTimer,
  renew(ctx) {
    if (ctx.state.phase === "bound") startRenew(ctx);
  },
  rebind(ctx) {
    // Renew's MRD ends at T2: the rebind timer takes over from a Renew still retransmitting (§18.2.4).
    if (ctx.state.phase === "bound" || ctx.state.phase === "renew") startRebind(ctx);
  },
  expire: onExpireTimer,
  refresh(ctx) {
    if (ctx.state.phase === "informed") beginExchange(ctx, "information-request", { ias: [] });
  },
};

/** "Now" from the owner or from a re-bound socket: renew, restart discovery, or retransmit at once. */
function onRenewRequest(ctx: Ctx): void {
  const phase = ctx.state.phase;
  if (phase === "bound") return startRenew(ctx);
  if (phase === "solicit" || phase === "idle" || phase === "informed") return begin(ctx, 0);
  if (ctx.state.exchange && ctx.state.exchange.count > 0) return transmit(ctx);
  ctx.log("debug", "renew request ignored", { phase });
}

export function step(state: FsmState, event: FsmEvent, env: FsmEnv): StepResult {
  const ctx = new Ctx(state, env, event.now);
  if (state.phase === "stopped") return { state, actions: [] };
  switch (event.type) {
    case "start":
      if (state.phase === "init") onStart(ctx);
      break;
    case "link-change":
      onLinkChange(ctx);
      break;
    case "timer":
      TIMERS[event.name](ctx);
      break;
    case "packet":
      onPacket(ctx, event.message, event.from);
      break;
    case "renew":
      onRenewRequest(ctx);
      break;
    case "release":
      // A second request during a Release only decides what happens after it.
      if (state.phase === "release") ctx.state.afterRelease = event.then === "stop" ? "stop" : (state.afterRelease ?? "idle");
      // Not started yet (no socket): nothing was said on the wire; the stored lease stays for the next start.
      else if (state.phase === "init") {
        if (event.then === "stop") toStopped(ctx);
      } else startRelease(ctx, event.then);
      break;
    case "stop":
      toStopped(ctx);
      break;
  }
  return { state: ctx.state, actions: ctx.actions };
}
