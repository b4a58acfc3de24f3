// The neighbors' session states and prefix counts, fed by WatchEvent (transitions, immediately) and by
// ListPeer (counts, on a poll and on request).
import type { Peer } from "@routerd/gobgp-api/gen/gobgp";
import type { BgpConfig } from "./config/config.js";
import type { DesiredBgp } from "./gobgp/desired.js";
import { sessionStateName } from "./gobgp/watch.js";

export interface PeerView {
  address: string;
  /** BGPPeer name. */
  owner: string;
  peerASN: number;
  state: string;
  /** ms epoch of the last state change. */
  since: number;
  /** ms epoch the session became Established; undefined when it is not. */
  establishedAt?: number;
  /** ms epoch of the last path (announce or withdraw) heard from it. */
  heardAt?: number;
  /** GoBGP's own time the session came up (ListPeer), for when its Established is observed. */
  upHint?: number;
  received: number;
  accepted: number;
  advertised: number;
  flaps: number;
}

export interface PeerTransition {
  address: string;
  owner: string;
  from: string;
  to: string;
  at: number;
}

export class PeerTable {
  private readonly peers = new Map<string, PeerView>();

  configure(config: BgpConfig, desired: DesiredBgp): void {
    for (const address of [...this.peers.keys()]) if (!desired.neighbors.has(address)) this.peers.delete(address);
    for (const [address, n] of desired.neighbors) {
      const asn = config.peers.find((p) => p.name === n.owner)?.spec.peerASN ?? 0;
      const v = this.peers.get(address);
      if (v === undefined) {
        this.peers.set(address, { address, owner: n.owner, peerASN: asn, state: "Idle", since: Date.now(), received: 0, accepted: 0, advertised: 0, flaps: 0 });
      } else {
        v.owner = n.owner;
        v.peerASN = asn;
      }
    }
  }

  observe(peer: Peer, now = Date.now()): PeerTransition | undefined {
    const address = peer.state?.neighborAddress || peer.conf?.neighborAddress;
    if (!address) return undefined;
    const v = this.peers.get(address);
    if (v === undefined) return undefined;
    const to = sessionStateName(peer.state?.sessionState);
    if (to === v.state) return undefined;
    const from = v.state;
    v.state = to;
    v.since = now;
    const hint = v.upHint;
    delete v.upHint;
    if (to === "Established") v.establishedAt = hint !== undefined ? Math.min(hint, now) : now;
    else {
      if (from === "Established") v.flaps++;
      delete v.establishedAt;
      v.received = v.accepted = v.advertised = 0;
    }
    return { address, owner: v.owner, from, to, at: now };
  }

  allDown(now = Date.now()): void {
    for (const v of this.peers.values()) {
      if (v.state === "Established") v.flaps++;
      v.state = "Idle";
      v.since = now;
      delete v.establishedAt;
      v.received = v.accepted = v.advertised = 0;
    }
  }

  /**
   * GoBGP's own uptimes (ListPeer: whole seconds, so the later end of that second is taken): a session
   * that was up long before routerd-bgp saw it (a re-attach) counts from when it really came up.
   */
  sessionsUp(peers: readonly Peer[], now = Date.now()): void {
    for (const p of peers) {
      const v = this.peers.get(p.state?.neighborAddress || p.conf?.neighborAddress || "");
      const uptime = p.timers?.state?.uptime?.getTime() ?? 0;
      if (v === undefined || uptime <= 0 || sessionStateName(p.state?.sessionState) !== "Established") continue;
      const at = Math.min(uptime + 999, now);
      if (v.state !== "Established") v.upHint = at;
      else if (v.establishedAt === undefined || at < v.establishedAt) v.establishedAt = at;
    }
  }

  heard(address: string, at: number): void {
    const v = this.peers.get(address);
    if (v !== undefined) v.heardAt = at;
  }

  /**
   * Every neighbor has re-sent its table since its session came up: Established for quietMs, and either
   * heard from since then and quiet for quietMs, or silent for silentMs (a neighbor announcing nothing).
   * GoBGP's watch stream reports no End-of-RIB, so "re-sent" is judged by time; never before the first path.
   * `only`: the neighbors waited for (a re-attach waits only for those whose table may still come).
   */
  relearned(now: number, quietMs: number, silentMs: number, only?: ReadonlySet<string>): boolean {
    for (const v of this.peers.values()) {
      if (only !== undefined && !only.has(v.address)) continue;
      if (v.establishedAt === undefined || now - v.establishedAt < quietMs) return false;
      const heardSinceUp = v.heardAt !== undefined && v.heardAt >= v.establishedAt;
      if (heardSinceUp ? now - v.heardAt! < quietMs : now - v.establishedAt < silentMs) return false;
    }
    return true;
  }

  /** advertised: the reply has the advertised counts (otherwise the last ones stay). */
  counts(peers: Peer[], advertised = true): void {
    for (const p of peers) {
      const v = this.peers.get(p.conf?.neighborAddress ?? "");
      if (v === undefined) continue;
      let received = 0;
      let accepted = 0;
      let sent = 0;
      for (const a of p.afiSafis) {
        received += Number(a.state?.received ?? 0);
        accepted += Number(a.state?.accepted ?? 0);
        sent += Number(a.state?.advertised ?? 0);
      }
      Object.assign(v, { received, accepted, ...(advertised ? { advertised: sent } : {}) });
    }
  }

  list(): PeerView[] {
    return [...this.peers.values()].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  }
}
