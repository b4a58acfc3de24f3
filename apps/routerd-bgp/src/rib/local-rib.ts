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
import { importFilter, type ImportFilter } from "./import-filter.js";

export interface NeighborRib {
  ibgp: boolean;
  filter: ImportFilter;
}

/**
 * One neighbor's path: shared by every prefix of one UPDATE (the attributes are decoded once per UPDATE, see
 * attrs.ts), so a prefix with one path costs its map entry and nothing else. `seq` orders it against the
 * neighbor's last session loss (graceful restart): older paths are stale.
 */
interface RibPath {
  neighbor: string;
  attrs: PathAttrs;
  seq: number;
}

/** A prefix's paths: one (the usual case, no array) or several. */
type Slot = RibPath | RibPath[];

/** < 0: path a (local preference la, iBGP ia) is better than b. */
function compare(la: number, a: PathAttrs, ia: boolean, lb: number, b: PathAttrs, ib: boolean): number {
  return lb - la || a.asPathLen - b.asPathLen || a.origin - b.origin || a.med - b.med || Number(ia) - Number(ib);
}

export class LocalRib {
  /** prefix → the path of every neighbor that announced it. */
  private readonly paths = new Map<string, Slot>();
  private neighbors = new Map<string, NeighborRib>();
  /** Neighbors that announced something since they were last dropped (spares a scan per state change). */
  private readonly announcing = new Set<string>();
  /** Neighbor → the seq its session was lost at (graceful restart): its paths older than that are stale. */
  private readonly staleBefore = new Map<string, number>();
  private seq = 0;
  /** The path built for the last announcement: the next prefix of the same UPDATE shares it. */
  private last: RibPath | undefined;
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

  private pathFor(neighbor: string, attrs: PathAttrs): RibPath {
    const last = this.last;
    if (last !== undefined && last.attrs === attrs && last.neighbor === neighbor) return last;
    this.last = { neighbor, attrs, seq: ++this.seq };
    return this.last;
  }

  /** One path announced or withdrawn. */
  apply(p: AdjInPath): void {
    const slot = this.paths.get(p.prefix);
    if (p.attrs === undefined) {
      if (slot !== undefined) this.remove(p.prefix, slot, (e) => e.neighbor === p.neighbor);
      return;
    }
    this.announcing.add(p.neighbor);
    const path = this.pathFor(p.neighbor, p.attrs);
    if (slot === undefined || (!Array.isArray(slot) && slot.neighbor === p.neighbor)) this.paths.set(p.prefix, path);
    else if (!Array.isArray(slot)) this.paths.set(p.prefix, [slot, path]);
    else {
      const i = slot.findIndex((e) => e.neighbor === p.neighbor);
      if (i < 0) slot.push(path);
      else slot[i] = path;
    }
  }

  /** Removes the prefix's paths that `match`; returns whether one was removed. */
  private remove(prefix: string, slot: Slot, match: (e: RibPath) => boolean): boolean {
    if (!Array.isArray(slot)) {
      if (!match(slot)) return false;
      this.paths.delete(prefix);
      return true;
    }
    const i = slot.findIndex(match);
    if (i < 0) return false;
    slot.splice(i, 1);
    if (slot.length === 1) this.paths.set(prefix, slot[0]!);
    return true;
  }

  /** The neighbor's session went down: its paths go (stale: they stay, marked, for graceful restart). */
  dropNeighbor(neighbor: string, keepStale = false): string[] {
    if (keepStale) {
      // Everything it sent so far is older than this mark: stale until re-announced or swept.
      this.staleBefore.set(neighbor, ++this.seq);
      this.last = undefined;
      return [];
    }
    this.announcing.delete(neighbor);
    this.staleBefore.delete(neighbor);
    return this.removeWhere((e) => e.neighbor === neighbor);
  }

  /** Graceful restart over: the neighbor's paths it did not re-announce go. */
  sweepStale(neighbor: string): string[] {
    const before = this.staleBefore.get(neighbor);
    if (before === undefined) return [];
    this.staleBefore.delete(neighbor);
    return this.removeWhere((e) => e.neighbor === neighbor && e.seq < before);
  }

  private removeWhere(match: (e: RibPath) => boolean): string[] {
    const changed: string[] = [];
    for (const [prefix, slot] of this.paths) if (this.remove(prefix, slot, match)) changed.push(prefix);
    return changed;
  }

  /** Forget everything (the stream restarts from a full listing). */
  clear(): void {
    this.paths.clear();
    this.announcing.clear();
    this.staleBefore.clear();
    this.last = undefined;
  }

  hasPathsFrom(neighbor: string): boolean {
    return this.announcing.has(neighbor);
  }

  /** Neighbors with paths here that `keep` does not hold. */
  neighborsNotIn(keep: ReadonlyMap<string, unknown>): Set<string> {
    const out = new Set<string>();
    for (const slot of this.paths.values()) for (const e of Array.isArray(slot) ? slot : [slot]) if (!keep.has(e.neighbor)) out.add(e.neighbor);
    return out;
  }

  /** The prefix's installable equal-cost next hops, "" for none. (No object per call: it runs for every prefix of a table load.) */
  best(prefix: string): NextHopKey {
    const slot = this.paths.get(prefix);
    if (slot === undefined || this.local(prefix)) return "";
    if (!Array.isArray(slot)) return this.neighbors.get(slot.neighbor)?.filter.nextHop(prefix, slot.attrs) ?? "";
    let best: { lp: number; attrs: PathAttrs; ibgp: boolean } | undefined;
    let hops: string[] = [];
    for (const e of slot) {
      const n = this.neighbors.get(e.neighbor);
      const hop = n?.filter.nextHop(prefix, e.attrs);
      if (n === undefined || hop === undefined) continue;
      const lp = n.filter.localPref(e.attrs);
      const d = best === undefined ? -1 : compare(lp, e.attrs, n.ibgp, best.lp, best.attrs, best.ibgp);
      if (d < 0) {
        best = { lp, attrs: e.attrs, ibgp: n.ibgp };
        hops = [hop];
      } else if (d === 0 && !hops.includes(hop)) hops.push(hop);
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
