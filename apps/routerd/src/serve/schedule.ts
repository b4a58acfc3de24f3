// When `routerd serve` runs a reconcile cycle. It wakes at least every second to poll the config file, but a
// wake-up is not a reconcile: a cycle runs when something asked for one (SIGHUP, a daemon event), when the
// config file changed, or when one is due (the periodic --interval, the cluster lease, a pending failback, a
// change to revert unless confirmed).
// Pure: times in, decisions out.

/** How often the config file is read to see whether it changed. */
export const CONFIG_POLL_MS = 1000;
/** A deadline never makes cycles follow each other closer than this. */
const MIN_CYCLE_GAP_MS = 10;

export interface DueInputs {
  /** When the last cycle started (0 before the first). */
  lastCycleAt: number;
  intervalMs: number;
  /** The cluster lease's refresh (leader) or poll (standby) period, when there is a cluster. */
  leaseEveryMs?: number;
  /** Moments a cycle must run: a pending failback has waited out its failbackDelay, a change is to be reverted. */
  deadlinesAt: readonly number[];
}

/** The time at which the next cycle is due without a kick. */
export function nextDueAt(d: DueInputs): number {
  let due = d.lastCycleAt + d.intervalMs;
  if (d.leaseEveryMs !== undefined) due = Math.min(due, d.lastCycleAt + d.leaseEveryMs);
  for (const at of d.deadlinesAt) due = Math.min(due, Math.max(d.lastCycleAt + MIN_CYCLE_GAP_MS, at));
  return due;
}

/** How long to sleep: until the cycle is due, but no longer than the config poll. */
export function sleepMs(now: number, dueAt: number): number {
  return Math.max(0, Math.min(dueAt - now, CONFIG_POLL_MS));
}

/** After a wake-up: reconcile only when asked to, when the config changed, or when a cycle is due. */
export function shouldCycle(w: { kicked: boolean; now: number; dueAt: number; configChanged: () => boolean }): boolean {
  return w.kicked || w.now >= w.dueAt || w.configChanged();
}
