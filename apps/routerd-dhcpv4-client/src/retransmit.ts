// Retransmission timing (RFC 2131 §4.1 and §4.4.5).

export interface RetransmitPolicy {
  /** First wait; RFC 2131 suggests 4 s. */
  baseMs: number;
  /** Cap for the doubling; RFC 2131 suggests 64 s. */
  maxMs: number;
  /** Uniform random offset in [-jitterMs, +jitterMs]; RFC 2131 suggests 1 s. */
  jitterMs: number;
}

export const RFC_RETRANSMIT: RetransmitPolicy = { baseMs: 4000, maxMs: 64000, jitterMs: 1000 };

/** Wait before retransmission number `attempt` (0 = after the first send): base·2^attempt, capped, ± jitter. */
export function backoffDelay(attempt: number, policy: RetransmitPolicy, rng: () => number): number {
  const doubled = policy.baseMs * 2 ** Math.min(attempt, 30);
  const capped = Math.min(doubled, policy.maxMs);
  const jitter = (rng() * 2 - 1) * policy.jitterMs;
  return Math.max(1, Math.round(capped + jitter));
}

/** RENEWING/REBINDING: half the time left until `deadline`, but never less than `minMs`. */
export function halfRemainingDelay(now: number, deadline: number, minMs: number): number {
  return Math.max(minMs, Math.floor((deadline - now) / 2));
}
