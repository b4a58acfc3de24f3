// What survives a restart (the daemon's data in state.json): each probe's machine, keyed by name and
// guarded by a fingerprint of what it probes, so a state is resumed only for the same target. Pure.
import { effectivePort, type ProbeConfig } from "./config.js";
import { isConsistent, isProbeState, type Machine, type Verdict } from "./state-machine.js";
import type { JsonValue } from "@routerd/daemon-kit";

export const PERSIST_VERSION = 1;

export interface PersistedProbe {
  fingerprint: string;
  machine: Machine;
}

/** What is probed, and how; not when (interval, timeout, thresholds may change and keep the state). */
export function probeFingerprint(p: ProbeConfig): string {
  return JSON.stringify([
    p.type,
    p.target,
    effectivePort(p) ?? null,
    p.path ?? null,
    p.expectStatus ?? null,
    p.query ?? null,
    p.sourceAddress ?? null,
    p.interface ?? null,
    p.fwmark ?? null,
  ]);
}

export function encodePersisted(probes: ReadonlyMap<string, PersistedProbe>): JsonValue {
  const out: Record<string, JsonValue> = {};
  for (const [name, p] of [...probes].sort(([a], [b]) => a.localeCompare(b))) {
    out[name] = { fingerprint: p.fingerprint, machine: { ...p.machine } };
  }
  return { version: PERSIST_VERSION, probes: out };
}

const VERDICTS: readonly Verdict[] = ["unknown", "up", "down"];
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const count = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;

function decodeMachine(v: unknown): Machine | undefined {
  if (!isRecord(v)) return undefined;
  const { state, verdict, consecutiveSuccesses, consecutiveFailures, since, reason } = v;
  if (!isProbeState(state) || !VERDICTS.includes(verdict as Verdict) || !isConsistent(state, verdict as Verdict)) return undefined;
  if (!count(consecutiveSuccesses) || !count(consecutiveFailures)) return undefined;
  if (typeof since !== "string" || Number.isNaN(Date.parse(since)) || typeof reason !== "string") return undefined;
  return { state, verdict: verdict as Verdict, consecutiveSuccesses, consecutiveFailures, since, reason };
}

/** Reads saved data leniently: anything unrecognisable is skipped (the probe starts Unknown). */
export function decodePersisted(data: unknown): Map<string, PersistedProbe> {
  const out = new Map<string, PersistedProbe>();
  if (!isRecord(data) || data.version !== PERSIST_VERSION || !isRecord(data.probes)) return out;
  for (const [name, entry] of Object.entries(data.probes)) {
    if (!isRecord(entry) || typeof entry.fingerprint !== "string") continue;
    const machine = decodeMachine(entry.machine);
    if (machine !== undefined) out.set(name, { fingerprint: entry.fingerprint, machine });
  }
  return out;
}
