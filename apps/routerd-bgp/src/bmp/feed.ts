// One BMP connection from gobgpd, as the RIB needs it (pure: events in, calls out). On connecting, gobgpd
// (3.10) sends the Initiation, a Peer Up for every Established session, then each such neighbor's
// Adj-RIB-In — one UPDATE per path — and an End-of-RIB per address family, all before any live message
// (the watch is registered and the dump queued in one step of gobgpd's main loop). So the stream is a
// consistent snapshot followed by the changes since, in order: peer state and paths in one sequence, a
// Peer Down after that neighbor's last paths.
//
// The snapshot is handed over whole (table()), like the watch ingest's listing: applying it path by path
// would re-choose an ECMP prefix after each neighbor's part (a FIB change on a mere re-attach). Which Peer
// Ups belong to it: those before the first Route Monitoring, for neighbors that were Established before
// the station was registered (`established`); a session that came up only after it is live. Should one be
// taken for the snapshot wrongly (a session that flapped in between: its End-of-RIB never comes), a
// withdraw or an UPDATE of several prefixes from it (the dump has one path per UPDATE), its Peer Down, or
// a quiet stream (idle()) ends the wait.
import type { AdjInPath } from "../rib/attrs.js";
import type { BmpEvent } from "./messages.js";

export interface BmpSink {
  /** The snapshot: every path of the neighbors Established when gobgpd connected (`established`). */
  table(paths: AdjInPath[], established: string[]): void;
  paths(paths: AdjInPath[]): void;
  /** A session came up or went down (ordered with the paths). */
  session(neighbor: string, up: boolean): void;
}

type Live = { paths: AdjInPath[] } | { neighbor: string; up: boolean };

export class BmpFeed {
  private phase: "start" | "peer-ups" | "dump" | "live" = "start";
  /** Snapshot neighbors → End-of-RIBs still to come. */
  private readonly pending = new Map<string, number>();
  private readonly snapshotPeers: string[] = [];
  private table: AdjInPath[] = [];
  /** Live events that arrived before the snapshot was complete, in order. */
  private held: Live[] = [];

  constructor(
    private readonly sink: BmpSink,
    private readonly established: ReadonlySet<string>,
  ) {}

  get live(): boolean {
    return this.phase === "live";
  }

  event(ev: BmpEvent): void {
    if (ev.type === "initiation") {
      this.phase = this.established.size === 0 ? "live" : "peer-ups";
      if (this.phase === "live") this.sink.table([], []);
      return;
    }
    if (ev.type === "termination") return;
    if (this.phase === "live") return this.deliver(toLive(ev));
    if (this.phase === "peer-ups" && ev.type === "peer-up") {
      if (!this.established.has(ev.neighbor)) return void this.held.push({ neighbor: ev.neighbor, up: true });
      this.pending.set(ev.neighbor, ev.families.length);
      this.snapshotPeers.push(ev.neighbor);
      return;
    }
    this.phase = "dump";
    const n = ev.type === "peer-up" ? undefined : this.pending.get(ev.neighbor);
    if (n !== undefined && ev.type === "route" && ev.endOfRib === undefined && ev.paths.length === 0) {
      // A path of a family routerd-bgp does not read: part of the dump all the same.
    } else if (n !== undefined && ev.type === "route" && ev.endOfRib !== undefined) {
      if (n <= 1) this.pending.delete(ev.neighbor);
      else this.pending.set(ev.neighbor, n - 1);
    } else if (n !== undefined && ev.type === "route" && (ev.paths.length === 1 && ev.paths[0]!.attrs !== undefined)) {
      this.table.push(ev.paths[0]!);
    } else {
      // Not part of a dump: a live event (for a neighbor taken for the snapshot wrongly, the wait ends).
      if (n !== undefined) this.pending.delete(ev.neighbor);
      const live = toLive(ev);
      if (live !== undefined) this.held.push(live);
    }
    if (this.pending.size === 0) this.finish();
  }

  /** The stream went quiet before the snapshot was complete: what arrived is all there is. */
  idle(): void {
    if (this.phase === "peer-ups" || this.phase === "dump") this.finish();
  }

  private finish(): void {
    this.phase = "live";
    this.pending.clear();
    const table = this.table;
    const held = this.held;
    this.table = [];
    this.held = [];
    this.sink.table(table, this.snapshotPeers);
    for (const l of held) this.deliver(l);
  }

  private deliver(l: Live | undefined): void {
    if (l === undefined) return;
    if ("paths" in l) {
      if (l.paths.length > 0) this.sink.paths(l.paths);
    } else this.sink.session(l.neighbor, l.up);
  }
}

function toLive(ev: BmpEvent): Live | undefined {
  if (ev.type === "route") return { paths: ev.paths };
  if (ev.type === "peer-up") return { neighbor: ev.neighbor, up: true };
  if (ev.type === "peer-down") return { neighbor: ev.neighbor, up: false };
  return undefined;
}
