// Runs one probe on its interval: start-to-start spacing, never two attempts of one probe at once, each
// attempt aborted at timeoutMs. A probe function that ignores the abort is abandoned after a grace period
// and recorded as a timeout, so no probe can stall its own schedule; probes run independently, so none
// can stall another's.
import type { ProbeConfig } from "./config.js";
import { SUCCEEDED, failureFromError, timeoutOutcome, type ProbeFn, type ProbeOutcome } from "./probes/outcome.js";

export interface ProbeResultRecord {
  /** ISO 8601: when the attempt started. */
  time: string;
  ok: boolean;
  latencyMs: number;
  /** "Succeeded" or a FailureReason. */
  reason: string;
  /** "" when ok. */
  error: string;
}

export interface RunnerDeps {
  probe: ProbeFn;
  onResult(result: ProbeResultRecord): void;
  /** onResult threw; the schedule goes on regardless. */
  onError?(err: unknown): void;
  now?: () => Date;
  /** How long past timeoutMs an attempt that ignores its abort signal is waited for. Default 1000 ms. */
  graceMs?: number;
}

export function toRecord(outcome: ProbeOutcome, startedAt: Date): ProbeResultRecord {
  return outcome.ok
    ? { time: startedAt.toISOString(), ok: true, latencyMs: outcome.latencyMs, reason: SUCCEEDED, error: "" }
    : { time: startedAt.toISOString(), ok: false, latencyMs: outcome.latencyMs ?? 0, reason: outcome.reason, error: outcome.error };
}

export class ProbeRunner {
  private timer: NodeJS.Timeout | undefined;
  /** Epoch ms of the next scheduled attempt while waiting. */
  private nextAt = 0;
  private inFlight: AbortController | undefined;
  /** Settles the attempt in flight at once (stop() does not wait for a probe that ignores its abort). */
  private giveUp: (() => void) | undefined;
  private stopped = false;
  private readonly now: () => Date;

  constructor(
    private config: ProbeConfig,
    private readonly deps: RunnerDeps,
  ) {
    this.now = deps.now ?? (() => new Date());
  }

  get running(): boolean {
    return !this.stopped;
  }

  /** First attempt after `delayMs`. */
  start(delayMs = 0): void {
    this.schedule(delayMs);
  }

  /** New timing or thresholds for the same target; applies from the next attempt. */
  update(config: ProbeConfig): void {
    const shorter = config.intervalMs < this.config.intervalMs;
    this.config = config;
    // Waiting out a long old interval after it was shortened would leave the probe blind for it.
    if (shorter && this.timer !== undefined) {
      this.schedule(Math.max(0, Math.min(this.nextAt - this.now().getTime(), config.intervalMs)));
    }
  }

  /** Stops scheduling and aborts an attempt in flight; its result is dropped. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.inFlight?.abort();
    this.giveUp?.();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.nextAt = this.now().getTime() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.attempt();
    }, delayMs);
  }

  private async attempt(): Promise<void> {
    const config = this.config;
    const startedAt = this.now();
    const controller = new AbortController();
    this.inFlight = controller;
    const timeout = setTimeout(() => controller.abort(), config.timeoutMs);
    let abandon: NodeJS.Timeout | undefined;
    const abandoned = new Promise<ProbeOutcome>((resolve) => {
      const giveUp = (): void => resolve(timeoutOutcome(config.timeoutMs));
      abandon = setTimeout(giveUp, config.timeoutMs + (this.deps.graceMs ?? 1000));
      this.giveUp = giveUp;
    });
    let outcome: ProbeOutcome;
    try {
      outcome = await Promise.race([this.deps.probe(config, controller.signal), abandoned]);
    } catch (err) {
      outcome = failureFromError(err);
    } finally {
      clearTimeout(timeout);
      clearTimeout(abandon);
      controller.abort();
      this.inFlight = undefined;
      this.giveUp = undefined;
    }
    if (this.stopped) return;
    try {
      this.deps.onResult(toRecord(outcome, startedAt));
    } catch (err) {
      this.deps.onError?.(err);
    }
    this.schedule(Math.max(0, startedAt.getTime() + this.config.intervalMs - this.now().getTime()));
  }
}
