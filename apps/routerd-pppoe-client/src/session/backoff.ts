// How long to wait before the next dial. Pure: the caller passes the random draw.
import type { EndCause } from "../pppd/exit-status.js";

export interface BackoffPolicy {
  /** First wait after a failed attempt, doubled per consecutive failure up to maxMs. */
  baseMs: number;
  maxMs: number;
  /** Least wait after an authentication failure (ISPs lock accounts that retry too fast). */
  authMinMs: number;
  /** A session up at least this long counts as a success: the next dial starts at once. */
  stableMs: number;
  /** ±jitter as a fraction, so routers behind one access concentrator do not redial in step. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 120_000, authMinMs: 10_000, stableMs: 20_000, jitter: 0.1 };

/**
 * `failures` counts the attempts that ended without a stable session, this one included (0 after a stable
 * session). `random` is a draw from [0, 1).
 */
export function redialDelayMs(failures: number, cause: EndCause, policy: BackoffPolicy, random: number): number {
  if (failures === 0 && cause.backoff === "normal") return 0;
  const exponential = Math.min(policy.baseMs * 2 ** Math.max(0, failures - 1), policy.maxMs);
  const floor = cause.backoff === "auth" ? Math.max(exponential, policy.authMinMs) : exponential;
  const spread = 1 + policy.jitter * (2 * random - 1);
  return Math.round(Math.min(floor * spread, policy.maxMs));
}
