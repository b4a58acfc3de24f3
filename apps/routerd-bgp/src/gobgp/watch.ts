// GoBGP's WatchEvent stream as two callbacks: peer state changes, and best-path changes grouped per prefix
// (with multiple paths enabled GoBGP sends the whole equal-cost set of every changed prefix, or one
// withdrawn path when none is left). The first table event after subscribing is the whole RIB.
import type { ClientReadableStream } from "@grpc/grpc-js";
import {
  PeerState_SessionState,
  WatchEventRequest_Table_Filter_Type,
  WatchEventResponse_PeerEvent_Type,
  type Peer,
  type WatchEventResponse,
} from "@routerd/gobgp-api/gen/gobgp";
import type { NextHopKey } from "../fib/lines.js";
import type { GobgpClient } from "./client.js";
import { fibPathOf } from "./codec.js";

export interface PrefixChange {
  prefix: string;
  /** "" when the prefix has no installable best path (withdrawn, or won by a local path). */
  hops: NextHopKey;
}

export interface WatchHandlers {
  onPeer(peer: Peer, type: WatchEventResponse_PeerEvent_Type): void;
  /** initial: this is the whole RIB at subscription time. */
  onPaths(changes: PrefixChange[], initial: boolean): void;
  onEnd(err: Error | undefined): void;
}

/** Groups one table event's paths by prefix into next-hop sets. */
export function changesOf(event: NonNullable<WatchEventResponse["table"]>): PrefixChange[] {
  const byPrefix = new Map<string, { hops: Set<string>; local: boolean }>();
  for (const path of event.paths) {
    const p = fibPathOf(path);
    if (p === undefined) continue;
    let entry = byPrefix.get(p.prefix);
    if (entry === undefined) byPrefix.set(p.prefix, (entry = { hops: new Set(), local: false }));
    if (p.withdraw || path.isNexthopInvalid) continue;
    if (p.local) entry.local = true;
    else if (p.nextHop !== "" && p.nextHop !== "0.0.0.0" && p.nextHop !== "::") entry.hops.add(p.nextHop);
  }
  const out: PrefixChange[] = [];
  for (const [prefix, e] of byPrefix) out.push({ prefix, hops: e.local || e.hops.size === 0 ? "" : [...e.hops].sort().join(",") });
  return out;
}

export function watchGobgp(client: GobgpClient, handlers: WatchHandlers): ClientReadableStream<WatchEventResponse> {
  const stream = client.watch({ peer: {}, table: { filters: [{ type: WatchEventRequest_Table_Filter_Type.BEST, init: true }] } });
  let first = true;
  stream.on("data", (ev: WatchEventResponse) => {
    if (ev.peer !== undefined) {
      if (ev.peer.peer !== undefined) handlers.onPeer(ev.peer.peer, ev.peer.type);
    } else if (ev.table !== undefined) {
      const initial = first;
      first = false;
      handlers.onPaths(changesOf(ev.table), initial);
    }
  });
  let ended = false;
  const end = (err?: Error) => {
    if (ended) return;
    ended = true;
    handlers.onEnd(err);
  };
  stream.on("error", (err: Error) => end(err));
  stream.on("end", () => end(undefined));
  return stream;
}

export const isEstablished = (p: Peer) => p.state?.sessionState === PeerState_SessionState.ESTABLISHED;

const STATE_NAMES: Record<number, string> = {
  [PeerState_SessionState.UNKNOWN]: "Unknown",
  [PeerState_SessionState.IDLE]: "Idle",
  [PeerState_SessionState.CONNECT]: "Connect",
  [PeerState_SessionState.ACTIVE]: "Active",
  [PeerState_SessionState.OPENSENT]: "OpenSent",
  [PeerState_SessionState.OPENCONFIRM]: "OpenConfirm",
  [PeerState_SessionState.ESTABLISHED]: "Established",
};

export const sessionStateName = (s: PeerState_SessionState | undefined) => STATE_NAMES[s ?? 0] ?? "Unknown";
