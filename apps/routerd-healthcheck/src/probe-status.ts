// How a probe appears in the daemon's status (GetStatus): one resource per probe whose phase is its state,
// a "Healthy" condition following the verdict, and details that change only on transitions or config
// changes (so state.json is not rewritten on every result). The daemon's phase follows its conditions.
import type { ConditionStatus, JsonObject, StatusApi } from "@routerd/daemon-kit";
import { effectivePort, type ProbeConfig } from "./config.js";
import { PROBE_KIND } from "./probe-kind.js";
import { isUsable, type Machine, type Verdict } from "./state-machine.js";

const CONDITION_OF: Record<Verdict, ConditionStatus> = { up: "True", down: "False", unknown: "Unknown" };

export function publishProbe(status: StatusApi, name: string, config: ProbeConfig, machine: Machine, message: string): void {
  const port = effectivePort(config);
  const details: JsonObject = {
    type: config.type,
    target: config.target,
    ...(port !== undefined ? { port } : {}),
    ...(config.interface !== undefined ? { interface: config.interface } : {}),
    ...(config.sourceAddress !== undefined ? { sourceAddress: config.sourceAddress } : {}),
    ...(config.fwmark !== undefined ? { fwmark: config.fwmark } : {}),
    usable: isUsable(machine.state),
    since: machine.since,
    reason: machine.reason,
    intervalMs: config.intervalMs,
  };
  status.setResource(name, { kind: PROBE_KIND, phase: machine.state, message, details });
  status.setResourceCondition(name, { type: "Healthy", status: CONDITION_OF[machine.verdict], reason: machine.state, message });
}

/** Probes that cannot run here at all (name → error) as the ProbesRunnable condition. */
export function publishRunnable(status: StatusApi, localErrors: ReadonlyMap<string, string>): void {
  const broken = [...localErrors].map(([name, error]) => `${name}: ${error}`);
  status.setCondition(
    broken.length === 0
      ? { type: "ProbesRunnable", status: "True", reason: "AllRunnable", message: "" }
      : { type: "ProbesRunnable", status: "False", reason: "LocalError", message: broken.join("; ") },
  );
  refreshPhase(status);
}

/** Degraded while any daemon-level condition is False (config not loaded, probes that cannot run). */
export function refreshPhase(status: StatusApi): void {
  status.setPhase(status.conditions().some((c) => c.status === "False") ? "Degraded" : "Running");
}
