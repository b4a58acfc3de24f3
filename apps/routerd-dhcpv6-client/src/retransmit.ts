// Retransmission rules (RFC 8415 §15) and the per-message parameters of §7.6 / §18.2.
import { MessageType } from "./constants.js";
import type { RandomSource } from "./random.js";

export type ExchangeKind = "solicit" | "request" | "renew" | "rebind" | "release" | "information-request";

export interface RetransParams {
  messageType: number;
  /** Initial retransmission time. */
  irtMs: number;
  /** Maximum retransmission time; 0 = no cap. */
  mrtMs: number;
  /** Maximum transmissions; 0 = unlimited. */
  mrc: number;
  /** Maximum duration; 0 = unlimited (renew/rebind set theirs from T2 and the lease lifetimes). */
  mrdMs: number;
}

const S = 1000;

/** RFC 8415 §7.6: SOL_*, REQ_*, REN_*, REB_*, REL_*, INF_*. */
export const RETRANSMISSION: Record<ExchangeKind, RetransParams> = {
  solicit: { messageType: MessageType.SOLICIT, irtMs: 1 * S, mrtMs: 3600 * S, mrc: 0, mrdMs: 0 },
  request: { messageType: MessageType.REQUEST, irtMs: 1 * S, mrtMs: 30 * S, mrc: 10, mrdMs: 0 },
  renew: { messageType: MessageType.RENEW, irtMs: 10 * S, mrtMs: 600 * S, mrc: 0, mrdMs: 0 },
  rebind: { messageType: MessageType.REBIND, irtMs: 10 * S, mrtMs: 600 * S, mrc: 0, mrdMs: 0 },
  release: { messageType: MessageType.RELEASE, irtMs: 1 * S, mrtMs: 0, mrc: 4, mrdMs: 0 },
  "information-request": { messageType: MessageType.INFORMATION_REQUEST, irtMs: 1 * S, mrtMs: 3600 * S, mrc: 0, mrdMs: 0 },
};

/**
 * Rebind that verifies stored leases after a restart or link change uses the Confirm parameters
 * (RFC 8415 §18.2.12, §18.2.3: CNF_TIMEOUT 1 s, CNF_MAX_RT 4 s, CNF_MAX_RD 10 s).
 */
export const VERIFY_REBIND: RetransParams = { messageType: MessageType.REBIND, irtMs: 1 * S, mrtMs: 4 * S, mrc: 0, mrdMs: 10 * S };

/** RAND uniform in [-0.1, +0.1]. */
function rand(rng: RandomSource): number {
  return rng.next() * 0.2 - 0.1;
}

/**
 * First RT = IRT + RAND*IRT. For Solicit RAND must be strictly positive (§18.2.1), so the first
 * Advertise-collection window is never shorter than IRT.
 */
export function initialRt(p: RetransParams, rng: RandomSource, strictlyPositive: boolean): number {
  const r = strictlyPositive ? 0.1 * (1 - rng.next()) : rand(rng);
  return capRt(p.irtMs + r * p.irtMs, p, rng);
}

/** RT = 2*RTprev + RAND*RTprev, then capped: RT = MRT + RAND*MRT when above MRT. */
export function nextRt(prevMs: number, p: RetransParams, rng: RandomSource): number {
  return capRt(2 * prevMs + rand(rng) * prevMs, p, rng);
}

function capRt(rt: number, p: RetransParams, rng: RandomSource): number {
  if (p.mrtMs > 0 && rt > p.mrtMs) return p.mrtMs + rand(rng) * p.mrtMs;
  return rt;
}

export interface RetransProgress {
  startedAt: number;
  /** Transmissions so far (1 after the first send). */
  count: number;
  rtMs: number;
}

/** When the current transmission's wait ends: after RT, or earlier at the MRD boundary. */
export function waitUntil(prog: RetransProgress, p: RetransParams, sentAt: number): number {
  const byRt = sentAt + prog.rtMs;
  return p.mrdMs > 0 ? Math.min(byRt, prog.startedAt + p.mrdMs) : byRt;
}

/** True when the exchange has failed: MRC transmissions made, or MRD elapsed (§15). */
export function exhausted(prog: RetransProgress, p: RetransParams, now: number): boolean {
  if (p.mrc > 0 && prog.count >= p.mrc) return true;
  return p.mrdMs > 0 && now - prog.startedAt >= p.mrdMs;
}

/** Elapsed Time option value: hundredths of a second since the exchange began, capped at 0xffff. */
export function elapsedCentiseconds(startedAt: number, now: number): number {
  return Math.min(0xffff, Math.max(0, Math.floor((now - startedAt) / 10)));
}
