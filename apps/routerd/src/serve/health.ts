// Reads probe states from routerd-healthcheck's socket. A missing or silent daemon means "unknown",
// never "unhealthy": routerd does not fail over on its own blindness.
import { connectDaemon, daemonSocketPath, type DaemonConnection } from "@routerd/rpc";
import { HEALTHCHECK_DAEMON } from "@routerd/api";
import type { HealthState } from "../core/egress.js";

const STATES = new Set<HealthState>(["Unknown", "Passing", "Healthy", "Failing", "Unhealthy"]);

/** The daemon's probe states, or undefined when it did not answer (not running yet, or too slow). */
export async function readProbeStates(runDir: string): Promise<Map<string, HealthState> | undefined> {
  let conn: DaemonConnection | undefined;
  try {
    conn = await connectDaemon(daemonSocketPath(runDir, HEALTHCHECK_DAEMON.daemon, HEALTHCHECK_DAEMON.instance), { connectTimeoutMs: 500, callTimeoutMs: 1000 });
    const status = await conn.getStatus();
    const out = new Map<string, HealthState>();
    for (const r of status.resources) if (STATES.has(r.phase as HealthState)) out.set(r.name, r.phase as HealthState);
    return out;
  } catch {
    return undefined;
  } finally {
    conn?.close();
  }
}

/** How long serve keeps using the last probe states it read while the daemon does not answer. */
export const HEALTH_MEMORY_MS = 30_000;

/**
 * The probe states to act on: the fresh ones, else the last ones read within HEALTH_MEMORY_MS, else none
 * (every probe Unknown). One answer missed by a busy daemon must not undo what health decided: a backend
 * known to be down would take connections again, an uplink would be judged blind.
 */
export class ProbeStateMemory {
  private last?: { at: number; states: Map<string, HealthState> };

  use(read: Map<string, HealthState> | undefined, now: number): Map<string, HealthState> {
    if (read) {
      this.last = { at: now, states: read };
      return read;
    }
    if (this.last && now - this.last.at <= HEALTH_MEMORY_MS) return this.last.states;
    return new Map();
  }
}

/** Calls `onTransition` for every probe transition until `signal` aborts; reconnects when the daemon restarts. */
export async function watchTransitions(runDir: string, signal: AbortSignal, onTransition: () => void): Promise<void> {
  const socket = daemonSocketPath(runDir, HEALTHCHECK_DAEMON.daemon, HEALTHCHECK_DAEMON.instance);
  while (!signal.aborted) {
    let conn: DaemonConnection | undefined;
    try {
      conn = await connectDaemon(socket, { connectTimeoutMs: 1000 });
      for await (const _e of conn.watchEvents({ topicPrefixes: ["healthcheck.transition"], signal })) onTransition();
    } catch {
      /* daemon absent or restarting */
    } finally {
      conn?.close();
    }
    if (!signal.aborted) await new Promise((r) => setTimeout(r, 500));
  }
}
