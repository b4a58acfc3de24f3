// Re-attaching to a gobgpd that kept running (--keep-gobgpd, or a broken watch stream): is its RIB the
// whole truth? Not while a session may still be re-sending its table — the gobgpd itself only just
// started, or a session only just came up. So a re-attach never deletes at once what the kernel has and the
// RIB lacks: those routes are retained and swept by the same rule as after a fresh gobgpd, once every
// neighbor waited for has relearned (PeerTable.relearned) or the stale hold is over. This module decides
// whom to wait for and since when the hold counts; router.ts does the I/O.

export interface ReattachInput {
  now: number;
  /** ms epoch gobgpd started (its /proc entry); undefined when it cannot be told. */
  gobgpdStartedAt: number | undefined;
  staleHoldMs: number;
  /** The configured neighbors and whether each is Established now. */
  neighbors: readonly { address: string; established: boolean }[];
}

export interface ReattachHold {
  /** Neighbors whose table the sweep waits for (each must have relearned it). */
  waitFor: Set<string>;
  /** The stale hold counts from here: gobgpd's start while it is young (the same deadline as if routerd-bgp had never gone). */
  holdingSince: number;
  /** gobgpd started less than the stale hold ago (or its age is unknown): its sessions may still be coming up. */
  young: boolean;
}

/**
 * Established neighbors are always waited for: whether one's table is complete is judged by time
 * (PeerTable.relearned: up for long and silent, or quiet since its last path), so a session of long
 * standing settles at once and one that only just came up is waited for. A neighbor that is not
 * Established is waited for only while gobgpd is young (its session may still come up, as after a fresh
 * start); in an older gobgpd it lost its session and its routes go, as they would have had routerd-bgp
 * been there.
 */
export function reattachHold(input: ReattachInput): ReattachHold {
  const { now, gobgpdStartedAt, staleHoldMs } = input;
  const young = gobgpdStartedAt === undefined || now - gobgpdStartedAt < staleHoldMs;
  const waitFor = new Set(input.neighbors.filter((n) => n.established || young).map((n) => n.address));
  return { waitFor, young, holdingSince: young && gobgpdStartedAt !== undefined ? Math.min(gobgpdStartedAt, now) : now };
}
