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
    if (to === "Established") v.establishedAt = now;
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

  /** How long every neighbor has been Established (since the last of them came up); -1 when one is not. */
  allEstablishedFor(now = Date.now()): number {
    let latest = 0;
    for (const v of this.peers.values()) {
      if (v.establishedAt === undefined) return -1;
      latest = Math.max(latest, v.establishedAt);
    }
    return now - latest;
  }

  counts(peers: Peer[]): void {
    for (const p of peers) {
      const v = this.peers.get(p.conf?.neighborAddress ?? "");
      if (v === undefined) continue;
      let received = 0;
      let accepted = 0;
      let advertised = 0;
      for (const a of p.afiSafis) {
        received += Number(a.state?.received ?? 0);
        accepted += Number(a.state?.accepted ?? 0);
        advertised += Number(a.state?.advertised ?? 0);
      }
      Object.assign(v, { received, accepted, advertised });
    }
  }

  list(): PeerView[] {
    return [...this.peers.values()].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  }
}
