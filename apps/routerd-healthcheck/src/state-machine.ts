// The per-probe state machine: pure, the clock passed in. A verdict (up/down) changes only after
// healthyThreshold consecutive successes or unhealthyThreshold consecutive failures, so one lost packet on
// a healthy uplink never moves traffic. The state shown to the world is derived from verdict and streak:
//
//   verdict  | latest result succeeded | latest result failed
//   unknown  | Passing                 | Unknown
//   up       | Healthy                 | Failing
//   down     | Passing                 | Unhealthy
//
// So Failing only ever follows Healthy: Healthy and Failing are "usable" (routerd may route over them,
// see apps/routerd/src/core/egress.ts), Unknown, Passing and Unhealthy are not. A fresh probe whose target
// is down goes Unknown → Unhealthy, never through a usable state.

export const PROBE_STATES = ["Unknown", "Passing", "Healthy", "Failing", "Unhealthy"] as const;
export type ProbeState = (typeof PROBE_STATES)[number];
export type Verdict = "unknown" | "up" | "down";

export interface Thresholds {
  healthyThreshold: number;
  unhealthyThreshold: number;
}

export interface Machine {
  state: ProbeState;
  verdict: Verdict;
  consecutiveSuccesses: number;
  consecutiveFailures: number;
  /** ISO 8601: when the current state was entered. */
  since: string;
  /** Why the current state was entered ("Succeeded", "Timeout", "ConfigChanged", ...). */
  reason: string;
}

export interface Transition {
  from: ProbeState;
  to: ProbeState;
  reason: string;
  /** ISO 8601. */
  at: string;
}

export interface StepResult {
  machine: Machine;
  /** Present only when the state changed. */
  transition?: Transition;
}

const USABLE: Record<ProbeState, boolean> = { Unknown: false, Passing: false, Healthy: true, Failing: true, Unhealthy: false };

/** True while what the probe checks may carry traffic: Healthy, or Failing before the threshold. */
export function isUsable(state: ProbeState): boolean {
  return USABLE[state];
}

export function isProbeState(value: unknown): value is ProbeState {
  return typeof value === "string" && (PROBE_STATES as readonly string[]).includes(value);
}

const STATES_OF_VERDICT: Record<Verdict, readonly ProbeState[]> = {
  unknown: ["Unknown", "Passing"],
  up: ["Healthy", "Failing"],
  down: ["Passing", "Unhealthy"],
};

/** Whether a (state, verdict) pair can occur; a restored pair that cannot is discarded. */
export function isConsistent(state: ProbeState, verdict: Verdict): boolean {
  return STATES_OF_VERDICT[verdict].includes(state);
}

export function initialMachine(now: Date, reason = "Started"): Machine {
  return { state: "Unknown", verdict: "unknown", consecutiveSuccesses: 0, consecutiveFailures: 0, since: now.toISOString(), reason };
}

/** State for a verdict and the latest result; see the table at the top. */
const STATE_OF: Record<Verdict, Record<"ok" | "failed", ProbeState>> = {
  unknown: { ok: "Passing", failed: "Unknown" },
  up: { ok: "Healthy", failed: "Failing" },
  down: { ok: "Passing", failed: "Unhealthy" },
};

/** Applies one probe result. `reason` is the result's reason ("Succeeded" or a failure reason). */
export function stepMachine(m: Machine, ok: boolean, reason: string, t: Thresholds, now: Date): StepResult {
  const consecutiveSuccesses = ok ? m.consecutiveSuccesses + 1 : 0;
  const consecutiveFailures = ok ? 0 : m.consecutiveFailures + 1;
  let verdict = m.verdict;
  if (consecutiveSuccesses >= t.healthyThreshold) verdict = "up";
  if (consecutiveFailures >= t.unhealthyThreshold) verdict = "down";
  const state = STATE_OF[verdict][ok ? "ok" : "failed"];
  if (state === m.state) return { machine: { ...m, verdict, consecutiveSuccesses, consecutiveFailures } };
  const at = now.toISOString();
  return {
    machine: { state, verdict, consecutiveSuccesses, consecutiveFailures, since: at, reason },
    transition: { from: m.state, to: state, reason, at },
  };
}

/** Forgets everything (the probe's target changed): back to Unknown, as a transition when not already there. */
export function resetMachine(m: Machine, reason: string, now: Date): StepResult {
  const machine = initialMachine(now, reason);
  if (m.state === "Unknown") return { machine: { ...machine, since: m.since } };
  return { machine, transition: { from: m.state, to: "Unknown", reason, at: machine.since } };
}
