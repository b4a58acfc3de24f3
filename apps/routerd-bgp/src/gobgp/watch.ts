// GoBGP's WatchEvent stream as two callbacks: peer state changes, and the pre-policy Adj-RIB-In changes
// (ADJIN: one event per BGP UPDATE received, hundreds of prefixes each, where the best-path stream would
// send one message per prefix). routerd-bgp applies the import policy and chooses best paths for the FIB
// itself (rib/); what is already in the Adj-RIB-In when subscribing is read with listAdjIn().
import type { ClientReadableStream } from "@grpc/grpc-js";
import {
  ListPathRequest_SortType,
  PeerState_SessionState,
  TableType,
  WatchEventRequest_Table_Filter_Type,
  WatchEventResponse_PeerEvent_Type,
  type Peer,
} from "@routerd/gobgp-api/gen/gobgp";
import { adjInPaths, type AdjInPath } from "../rib/attrs.js";
import type { GobgpClient } from "./client.js";
import { familyOf } from "./codec.js";
import type { WatchEvent } from "./watch-decode.js";

export interface WatchHandlers {
  onPeer(peer: Peer, type: WatchEventResponse_PeerEvent_Type): void;
  onPaths(paths: AdjInPath[]): void;
  onEnd(err: Error | undefined): void;
}

/** `paths`: the Adj-RIB-In events too (otherwise peer events only: the BMP ingest's status stream). */
export function watchGobgp(client: GobgpClient, handlers: WatchHandlers, paths = true): ClientReadableStream<WatchEvent> {
  const table = paths ? { table: { filters: [{ type: WatchEventRequest_Table_Filter_Type.ADJIN, init: false }] } } : {};
  const stream = client.watch({ peer: {}, ...table });
  stream.on("data", (ev: WatchEvent) => {
    if (ev.peer !== undefined) {
      if (ev.peer.peer !== undefined) handlers.onPeer(ev.peer.peer, ev.peer.type);
    } else if (ev.paths !== undefined) handlers.onPaths(ev.paths);
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

/** One neighbor's pre-policy Adj-RIB-In as GoBGP holds it now. */
export async function listAdjIn(client: GobgpClient, neighbor: string): Promise<AdjInPath[]> {
  const dests = await client.listPath({
    tableType: TableType.ADJ_IN,
    name: neighbor,
    family: familyOf(neighbor),
    prefixes: [],
    sortType: ListPathRequest_SortType.NONE,
    enableFiltered: true,
    enableNlriBinary: false,
    enableAttributeBinary: false,
    enableOnlyBinary: false,
  });
  const out: AdjInPath[] = [];
  for (const d of dests) for (const p of adjInPaths(d.destination?.paths ?? [])) out.push({ ...p, neighbor });
  return out;
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
