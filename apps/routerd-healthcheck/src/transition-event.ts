// The healthcheck.transition event: built by the daemon, parsed by clients. One place for its shape.
import type { EventInput, Severity } from "@routerd/daemon-kit";
import type { Event } from "@routerd/rpc";
import { isProbeState, isUsable, type ProbeState, type Transition } from "./state-machine.js";

export const TRANSITION_TOPIC = "healthcheck.transition";

export interface ProbeTransition {
  /** Event sequence number: resume a watch after it with afterSeq. */
  seq: number;
  time: Date | undefined;
  /** The probe (HealthCheck) name. */
  probe: string;
  from: ProbeState;
  to: ProbeState;
  /** Why: "Succeeded", a failure reason such as "Timeout", or "ConfigChanged". */
  reason: string;
  /** Whether `to` may carry traffic (Healthy or Failing). */
  usable: boolean;
  /** The failure detail of the result that caused it; "" on success. */
  error: string;
}

const SEVERITY: Record<ProbeState, Severity> = {
  Unknown: "info",
  Passing: "info",
  Healthy: "info",
  Failing: "warning",
  Unhealthy: "warning",
};

export function transitionEvent(probe: string, t: Transition, extra: { error?: string; attributes?: Record<string, string | number> } = {}): EventInput {
  const error = extra.error ?? "";
  return {
    topic: TRANSITION_TOPIC,
    resource: probe,
    severity: SEVERITY[t.to],
    message: `${t.from} -> ${t.to}: ${t.reason}${error ? ` (${error})` : ""}`,
    attributes: { ...extra.attributes, from: t.from, to: t.to, reason: t.reason, usable: isUsable(t.to), error },
  };
}

/** The transition an event carries, or undefined for any other event. */
export function transitionFromEvent(event: Event): ProbeTransition | undefined {
  if (event.topic !== TRANSITION_TOPIC) return undefined;
  const { from, to, reason = "", error = "" } = event.attributes;
  if (!isProbeState(from) || !isProbeState(to) || event.resource === "") return undefined;
  return { seq: event.seq, time: event.time, probe: event.resource, from, to, reason, usable: isUsable(to), error };
}
