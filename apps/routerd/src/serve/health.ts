// Reads probe states from routerd-healthcheck's socket. A missing or silent daemon means "unknown",
// never "unhealthy": routerd does not fail over on its own blindness.
import { connectDaemon, daemonSocketPath, type DaemonConnection } from "@routerd/rpc";
import { HEALTHCHECK_DAEMON } from "@routerd/api";
import type { HealthState } from "../core/egress.js";

const STATES = new Set<HealthState>(["Unknown", "Passing", "Healthy", "Failing", "Unhealthy"]);

export async function readProbeStates(runDir: string): Promise<Map<string, HealthState>> {
  const out = new Map<string, HealthState>();
  let conn: DaemonConnection | undefined;
  try {
    conn = await connectDaemon(daemonSocketPath(runDir, HEALTHCHECK_DAEMON.daemon, HEALTHCHECK_DAEMON.instance), { connectTimeoutMs: 500, callTimeoutMs: 1000 });
    const status = await conn.getStatus();
    for (const r of status.resources) if (STATES.has(r.phase as HealthState)) out.set(r.name, r.phase as HealthState);
  } catch {
    /* not running yet: every probe is Unknown */
  } finally {
    conn?.close();
  }
  return out;
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
