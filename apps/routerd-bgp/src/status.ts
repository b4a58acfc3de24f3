// Status as routerd reads it: one resource per BGPPeer (phase = its sessions' state; details = the
// original's BGPPeer provides) and the daemon's details = BGPRouter provides (peers, prefixes,
// establishedPeers, acceptedPrefixes, observedAt) plus the FIB's counters.
import type { DaemonContext, JsonObject } from "@routerd/daemon-kit";
import type { PeerView } from "./peers.js";
import type { BgpRouter } from "./router.js";

type Ctx = Pick<DaemonContext, "status">;

/** A BGPPeer is Established when all its neighbors are, else the least advanced state among them. */
const ORDER = ["Idle", "Connect", "Active", "OpenSent", "OpenConfirm", "Established"];

function peerPhase(views: PeerView[]): string {
  return views.map((v) => v.state).sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b))[0] ?? "Idle";
}

/** bfdd's state names → a phase. */
const BFD_PHASE: Record<string, string> = { up: "Up", down: "Down", init: "Init", "adm-down": "AdminDown", unknown: "Unknown", "no-route": "NoRoute" };

const peerJson = (v: PeerView, now: number, bfd?: string): JsonObject => ({
  address: v.address,
  peer: v.owner,
  peerASN: v.peerASN,
  state: v.state,
  since: new Date(v.since).toISOString(),
  uptimeSeconds: v.establishedAt !== undefined ? Math.floor((now - v.establishedAt) / 1000) : 0,
  receivedPrefixes: v.received,
  acceptedPrefixes: v.accepted,
  advertisedPrefixes: v.advertised,
  ...(bfd !== undefined ? { bfd } : {}),
});

export function publishStatus(ctx: Ctx, router: BgpRouter, known: Set<string>, now = Date.now()): void {
  const observedAt = new Date(now).toISOString();
  const views = router.peers.list();
  const bfdOf = (address: string) => router.bfd.stateOf(address);
  const byOwner = new Map<string, PeerView[]>();
  for (const v of views) byOwner.set(v.owner, [...(byOwner.get(v.owner) ?? []), v]);
  for (const [owner, list] of byOwner) {
    const phase = peerPhase(list);
    ctx.status.setResource(owner, {
      kind: "BGPPeer",
      phase,
      message: list.map((v) => `${v.address} ${v.state}`).join(", "),
      details: {
        address: list[0]!.address,
        state: phase,
        acceptedPrefixes: list.reduce((n, v) => n + v.accepted, 0),
        observedAt,
        neighbors: list.map((v) => peerJson(v, now, bfdOf(v.address))),
      },
    });
    known.add(owner);
  }
  // BFD sessions as resources "BFD/<name>" (a BFD and a BGPPeer may share a name).
  const sessions = router.bfd.list();
  for (const b of sessions) {
    const key = `BFD/${b.name}`;
    ctx.status.setResource(key, {
      kind: "BFD",
      phase: BFD_PHASE[b.state] ?? b.state,
      message: `${b.peer} ${b.state}${b.bgpDisabled ? " (BGP neighbor disabled)" : ""}`,
      details: { peer: b.peer, localAddress: b.localAddress, multihop: b.multihop, state: b.state, since: new Date(b.since).toISOString(), downs: b.downs, bgpDisabled: b.bgpDisabled, observedAt },
    });
    known.add(key);
  }
  const bfdKeys = new Set(sessions.map((b) => `BFD/${b.name}`));
  for (const name of [...known]) {
    if (byOwner.has(name) || bfdKeys.has(name)) continue;
    ctx.status.removeResource(name);
    known.delete(name);
  }
  const fib = router.fib?.stats;
  const established = views.filter((v) => v.state === "Established").length;
  ctx.status.setDetails({
    router: router.config.router.name,
    peers: views.map((v) => peerJson(v, now, bfdOf(v.address))),
    prefixes: fib?.desired ?? 0,
    establishedPeers: established,
    acceptedPrefixes: views.reduce((n, v) => n + v.accepted, 0),
    observedAt,
    gobgpd: { pid: router.process.pid ?? 0, restarts: router.process.restarts, staleStopped: router.process.staleStopped, attached: router.attached, phase: router.phase, error: router.lastError },
    ...(sessions.length > 0 ? { bfdd: { pid: router.bfd.bfddPid ?? 0 } } : {}),
    ...(fib !== undefined
      ? {
          fib: {
            ...router.fib!.target,
            writer: router.fib!.writerKind,
            installed: fib.installed,
            desired: fib.desired,
            pending: fib.pending,
            retained: fib.retained,
            writes: fib.writes,
            failures: fib.failures,
            flushes: fib.flushes,
            ...(fib.lastError ? { lastError: `${fib.lastError.prefix}: ${fib.lastError.error}` } : {}),
          },
        }
      : {}),
  });
  const healthy = router.phase === "Running";
  ctx.status.setCondition({
    type: "GobgpdReady",
    status: healthy ? "True" : "False",
    reason: router.phase,
    message: healthy ? `gobgpd pid ${router.process.pid}` : router.lastError || router.phase,
  });
  ctx.status.setPhase(healthy ? "Running" : "Degraded");
}
