// Where routerd-bgp's RIB learns the paths (the "ingest"): GoBGP's WatchEvent stream (watch-ingest.ts) or
// a BMP station gobgpd sends its pre-policy route monitoring to (bmp/ingest.ts). Either one gives the
// router the same calls: peer states for status, the initial table once per subscription, then every
// change in order. Chosen by name (ROUTERD_BGP_INGEST, docs/bgp.md "The FIB").
import type { Peer } from "@routerd/gobgp-api/gen/gobgp";
import type { Logger } from "pino";
import type { AdjInPath } from "../rib/attrs.js";
import type { GobgpClient } from "./client.js";

export interface IngestHandlers {
  /** A session state change from WatchEvent (status and events). */
  onPeer(peer: Peer): void;
  /** GoBGP's own view of the sessions when the subscription starts (their uptimes). */
  onListed(peers: Peer[]): void;
  /** A path arrived while the table is still being read (the sweep waits until the neighbor is quiet). */
  onHeard(neighbor: string): void;
  /**
   * Every Established neighbor's pre-policy Adj-RIB-In, with what arrived while it was read applied after
   * it: once per subscription, before any onPaths.
   */
  onTable(paths: AdjInPath[][], established: string[]): void;
  onPaths(paths: AdjInPath[]): void;
  /** A session came up or went down, in order with its paths (only from an ingest with orderedSessions). */
  onSession(neighbor: string, up: boolean): void;
  /** The subscription broke (the router subscribes again while gobgpd runs). */
  onEnd(err: Error | undefined): void;
}

export interface Ingest {
  /**
   * Session losses come through onSession, ordered with the paths (BMP). Otherwise the router takes them
   * from onPeer, and GoBGP's ordering of its two kinds of events is all there is (WatchEvent).
   */
  readonly orderedSessions: boolean;
  /** Stops it (resolves once gobgpd was told, for a BMP station). */
  close(): Promise<void>;
}

export interface IngestContext {
  client: GobgpClient;
  logger: Logger;
  /** gobgpd's pid (the BMP station accepts only its connection). */
  gobgpdPid: () => number | undefined;
}

export type IngestKind = "watch" | "bmp";
/** BMP: the raw UPDATEs, far less for gobgpd to convert and for routerd-bgp to decode (docs/performance.md, BGP, session 8). */
export const DEFAULT_INGEST: IngestKind = "bmp";
export type IngestFactory = (ctx: IngestContext, handlers: IngestHandlers) => Ingest;

/** The ingest named by `value` (ROUTERD_BGP_INGEST); the default when unset. */
export function ingestKind(value: string | undefined, fallback: IngestKind): IngestKind {
  if (value === undefined || value === "") return fallback;
  if (value === "watch" || value === "bmp") return value;
  throw new Error(`ROUTERD_BGP_INGEST=${value}: expected watch or bmp`);
}
