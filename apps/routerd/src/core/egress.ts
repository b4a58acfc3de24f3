// Which EgressRoutePolicy candidate carries new connections: the highest-weight usable one, with
// hysteresis so a flapping uplink does not cause churn. Pure: health and time in, decision out.
import { durationMs, liveCandidates, type EgressRoutePolicySpec } from "@routerd/api";

export type HealthState = "Unknown" | "Passing" | "Healthy" | "Failing" | "Unhealthy";

export interface EgressDecision {
  active: string;
  /** A better candidate waiting out failbackDelay before traffic moves back to it. */
  pending?: { candidate: string; since: number };
  changedAt: number;
}

/** Healthy, or still within its failure threshold, or not health-checked at all. */
function usable(state: HealthState | undefined, checked: boolean): boolean {
  return !checked || state === "Healthy" || state === "Failing";
}

export function selectEgress(
  spec: EgressRoutePolicySpec,
  health: ReadonlyMap<string, HealthState>,
  previous: EgressDecision | undefined,
  now: number,
  /** HealthChecks with enabled: false: a candidate using one counts as unchecked. */
  disabledChecks: ReadonlySet<string> = new Set(),
): EgressDecision {
  const live = liveCandidates(spec);
  if (!live.length) return { active: "", changedAt: previous?.changedAt ?? now };
  const ranked = [...live].sort((a, b) => b.weight - a.weight);
  const checked = (c: (typeof ranked)[number]) => c.healthCheck !== undefined && !disabledChecks.has(c.healthCheck);
  const stateOf = (c: (typeof ranked)[number]) => (checked(c) ? health.get(c.healthCheck!) : undefined);
  const good = ranked.filter((c) => usable(stateOf(c), checked(c)));
  // Nothing known to be healthy yet (startup): prefer what is not known to be down.
  const fallback = ranked.filter((c) => stateOf(c) !== "Unhealthy");
  const best = (good[0] ?? fallback[0] ?? ranked[0])!;

  if (!previous || !live.some((c) => c.name === previous.active)) return { active: best.name, changedAt: now };
  const current = live.find((c) => c.name === previous.active)!;
  const currentOk = good.includes(current) || (good.length === 0 && stateOf(current) !== "Unhealthy");
  if (!currentOk) return best.name === current.name ? { active: current.name, changedAt: previous.changedAt } : { active: best.name, changedAt: now };
  if (best.name === current.name || best.weight <= current.weight) return { active: current.name, changedAt: previous.changedAt };

  // A better candidate is usable again: move back only after it stayed usable for failbackDelay.
  const since = previous.pending?.candidate === best.name ? previous.pending.since : now;
  if (now - since >= durationMs(spec.failbackDelay)) return { active: best.name, changedAt: now };
  return { active: current.name, pending: { candidate: best.name, since }, changedAt: previous.changedAt };
}
