// One upstream's health: a smoothed round-trip time for ranking, consecutive failures and successes against
// the forwarder's thresholds, and the counters GetStatus reports. Pure: the caller supplies times.

export type UpstreamState = "up" | "down";

export interface Thresholds {
  failThreshold: number;
  passThreshold: number;
}

export interface HealthTransition {
  from: UpstreamState;
  to: UpstreamState;
  reason: string;
}

export interface HealthCounters {
  queries: number;
  answers: number;
  failures: number;
  timeouts: number;
  /** Sum and count of successful round trips (ms), for the mean. */
  latencyTotalMs: number;
  latencyMaxMs: number;
  lastLatencyMs: number;
}

/** Before any measurement an upstream ranks as if it answered in this many ms. */
const INITIAL_SRTT_MS = 50;

export class UpstreamHealth {
  state: UpstreamState = "up";
  srttMs = INITIAL_SRTT_MS;
  consecutiveFailures = 0;
  consecutiveSuccesses = 0;
  lastError = "";
  since: number;
  readonly counters: HealthCounters = { queries: 0, answers: 0, failures: 0, timeouts: 0, latencyTotalMs: 0, latencyMaxMs: 0, lastLatencyMs: 0 };

  constructor(
    public thresholds: Thresholds,
    now: number,
  ) {
    this.since = now;
  }

  sent(): void {
    this.counters.queries++;
  }

  success(rttMs: number, now: number): HealthTransition | undefined {
    const c = this.counters;
    c.answers++;
    c.latencyTotalMs += rttMs;
    c.lastLatencyMs = rttMs;
    if (rttMs > c.latencyMaxMs) c.latencyMaxMs = rttMs;
    // RFC 6298-style smoothing, weight 1/8.
    this.srttMs += (rttMs - this.srttMs) / 8;
    this.consecutiveFailures = 0;
    this.consecutiveSuccesses++;
    if (this.state === "down" && this.consecutiveSuccesses >= this.thresholds.passThreshold) return this.move("up", "answering again", now);
    return undefined;
  }

  failure(reason: string, message: string, now: number): HealthTransition | undefined {
    const c = this.counters;
    c.failures++;
    if (reason === "timeout") {
      c.timeouts++;
      // A timeout says little about the real RTT, but such an upstream must rank lower.
      this.srttMs = Math.min(this.srttMs * 2 + 100, 5000);
    }
    this.lastError = message;
    this.consecutiveSuccesses = 0;
    this.consecutiveFailures++;
    if (this.state === "up" && this.consecutiveFailures >= this.thresholds.failThreshold) return this.move("down", `${this.consecutiveFailures} consecutive failures: ${message}`, now);
    return undefined;
  }

  /** Lower ranks first: healthy before down, then by smoothed RTT. */
  rank(): number {
    return (this.state === "up" ? 0 : 1_000_000) + this.srttMs;
  }

  /** How long to wait before also asking the next upstream. */
  hedgeAfterMs(): number {
    return Math.min(Math.max(this.srttMs * 3 + 50, 150), 800);
  }

  meanLatencyMs(): number {
    return this.counters.answers === 0 ? 0 : this.counters.latencyTotalMs / this.counters.answers;
  }

  private move(to: UpstreamState, reason: string, now: number): HealthTransition {
    const from = this.state;
    this.state = to;
    this.since = now;
    return { from, to, reason };
  }
}
