// routerd-bgp's own Loc-RIB for the FIB (pure): every neighbor's pre-policy paths per prefix, the import
// policy applied per neighbor, and the best-path choice with multipath, as GoBGP makes it with multiple
// paths enabled: highest local preference, shortest AS path, lowest origin, lowest MED, eBGP before iBGP;
// every path equal to the best on all five is an equal-cost next hop (ECMP). A session that goes down
// takes its paths with it at once (GoBGP sends no withdraws for them); with graceful restart they stay,
// marked stale, until the neighbor has re-sent its table or the restart time is over.
import type { BgpConfig } from "../config/config.js";
import type { NextHopKey } from "../fib/lines.js";
import { directionPolicy } from "../gobgp/desired.js";
import type { AdjInPath, PathAttrs } from "./attrs.js";
import { importFilter, type Accepted, type ImportFilter } from "./import-filter.js";

export interface NeighborRib {
  ibgp: boolean;
  filter: ImportFilter;
}

interface Entry {
  neighbor: string;
  attrs: PathAttrs;
  stale: boolean;
}

interface Candidate extends Accepted {
  attrs: PathAttrs;
  ibgp: boolean;
}

/** < 0: a is better. */
function compare(a: Candidate, b: Candidate): number {
  return (
    b.localPref - a.localPref ||
    a.attrs.asPathLen - b.attrs.asPathLen ||
    a.attrs.origin - b.attrs.origin ||
    a.attrs.med - b.attrs.med ||
    Number(a.ibgp) - Number(b.ibgp)
  );
}

export class LocalRib {
  /** prefix → the paths of every neighbor that announced it (usually one). */
  private readonly paths = new Map<string, Entry[]>();
  private neighbors = new Map<string, NeighborRib>();
  /** Neighbors that announced something since they were last dropped (spares a scan per state change). */
  private readonly announcing = new Set<string>();
  /** Prefixes this router originates itself: never installed (the local path wins in GoBGP too). */
  private local: (prefix: string) => boolean = () => false;

  /** New neighbor set or policies: the caller re-evaluates every prefix (prefixes()). */
  configure(neighbors: Map<string, NeighborRib>, local?: (prefix: string) => boolean): void {
    this.neighbors = neighbors;
    if (local !== undefined) this.local = local;
  }

  get size(): number {
    return this.paths.size;
  }

  prefixes(): IterableIterator<string> {
    return this.paths.keys();
  }

  /** One path announced or withdrawn. */
  apply(p: AdjInPath): void {
    const list = this.paths.get(p.prefix);
    const i = list === undefined ? -1 : list.findIndex((e) => e.neighbor === p.neighbor);
    if (p.attrs === undefined) {
      if (i < 0) return;
      if (list!.length === 1) this.paths.delete(p.prefix);
      else list!.splice(i, 1);
      return;
    }
    this.announcing.add(p.neighbor);
    const entry: Entry = { neighbor: p.neighbor, attrs: p.attrs, stale: false };
    if (list === undefined) this.paths.set(p.prefix, [entry]);
    else if (i < 0) list.push(entry);
    else list[i] = entry;
  }

  /** The neighbor's session went down: its paths go (stale: they stay, marked, for graceful restart). */
  dropNeighbor(neighbor: string, keepStale = false): string[] {
    const changed: string[] = [];
    if (!keepStale) this.announcing.delete(neighbor);
    for (const [prefix, list] of this.paths) {
      const i = list.findIndex((e) => e.neighbor === neighbor);
      if (i < 0) continue;
      if (keepStale) {
        list[i]!.stale = true;
        continue;
      }
      changed.push(prefix);
      if (list.length === 1) this.paths.delete(prefix);
      else list.splice(i, 1);
    }
    return changed;
  }

  /** Graceful restart over: the neighbor's paths it did not re-announce go. */
  sweepStale(neighbor: string): string[] {
    const changed: string[] = [];
    for (const [prefix, list] of this.paths) {
      const i = list.findIndex((e) => e.neighbor === neighbor && e.stale);
      if (i < 0) continue;
      changed.push(prefix);
      if (list.length === 1) this.paths.delete(prefix);
      else list.splice(i, 1);
    }
    return changed;
  }

  /** Forget everything (the stream restarts from a full listing). */
  clear(): void {
    this.paths.clear();
    this.announcing.clear();
  }

  hasPathsFrom(neighbor: string): boolean {
    return this.announcing.has(neighbor);
  }

  /** Neighbors with paths here that `keep` does not hold. */
  neighborsNotIn(keep: ReadonlyMap<string, unknown>): Set<string> {
    const out = new Set<string>();
    for (const list of this.paths.values()) for (const e of list) if (!keep.has(e.neighbor)) out.add(e.neighbor);
    return out;
  }

  /** The prefix's installable equal-cost next hops, "" for none. */
  best(prefix: string): NextHopKey {
    const list = this.paths.get(prefix);
    if (list === undefined || this.local(prefix)) return "";
    let best: Candidate | undefined;
    let hops: string[] = [];
    for (const e of list) {
      const n = this.neighbors.get(e.neighbor);
      if (n === undefined) continue;
      const acc = n.filter(prefix, e.attrs);
      if (acc === undefined) continue;
      const c: Candidate = { ...acc, attrs: e.attrs, ibgp: n.ibgp };
      const d = best === undefined ? -1 : compare(c, best);
      if (d < 0) {
        best = c;
        hops = [c.nextHop];
      } else if (d === 0 && !hops.includes(c.nextHop)) hops.push(c.nextHop);
    }
    return hops.length <= 1 ? (hops[0] ?? "") : hops.sort().join(",");
  }
}

/** Every configured neighbor's import policy and session type, as gobgp/desired.ts renders them for gobgpd. */
export function ribNeighbors(config: BgpConfig): Map<string, NeighborRib> {
  const router = config.router.spec;
  const out = new Map<string, NeighborRib>();
  for (const peer of config.peers) {
    const dir = directionPolicy(router, peer);
    for (const address of peer.spec.peers) out.set(address, { ibgp: peer.spec.peerASN === router.asn, filter: importFilter(address, router.asn, dir) });
  }
  return out;
}
