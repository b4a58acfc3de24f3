// How new connections are spread over an IngressService's backends, as nft map ranges. Pure.
//
// sourceHash hashes the client address into HASH_BUCKETS buckets. Every configured backend owns a fixed,
// weighted run of buckets whatever its health; only the buckets of a backend that is down are handed to
// the healthy ones. So a client of a healthy backend keeps it when another backend fails or comes back.
import { weightedShare, type IngressTarget } from "@routerd/api";

export const HASH_BUCKETS = 256;

export interface BucketRange {
  from: number;
  to: number;
  target: IngressTarget;
}

/** `n` split into parts proportional to `weights` (largest remainder; ties go to the earlier one). */
export function apportion(n: number, weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  if (total === 0) return weights.map(() => 0);
  const exact = weights.map((w) => (n * w) / total);
  const parts = exact.map(Math.floor);
  let left = n - parts.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => [e - Math.floor(e), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left-- <= 0) break;
    parts[i]!++;
  }
  return parts;
}

/** Consecutive runs of the same target, as ranges. */
function ranges(owners: readonly IngressTarget[]): BucketRange[] {
  const out: BucketRange[] = [];
  owners.forEach((target, i) => {
    const last = out.at(-1);
    if (last && last.target.name === target.name) last.to = i;
    else out.push({ from: i, to: i, target });
  });
  return out;
}

/** Contiguous runs of `parts[i]` copies of `targets[i]`. */
function spread(targets: readonly IngressTarget[], parts: readonly number[]): IngressTarget[] {
  return targets.flatMap((t, i) => Array<IngressTarget>(parts[i]!).fill(t));
}

/** Random selection: `numgen random mod <modulus>` with one range per active backend, by weight. */
export function randomRanges(active: readonly IngressTarget[]): { modulus: number; ranges: BucketRange[] } {
  const share = weightedShare(active);
  return { modulus: share.reduce((a, b) => a + b, 0), ranges: ranges(spread(active, share)) };
}

/** sourceHash: bucket ranges over `HASH_BUCKETS`, stable for the backends that stay active. */
export function hashRanges(all: readonly IngressTarget[], active: readonly IngressTarget[]): BucketRange[] {
  const base = spread(all, apportion(HASH_BUCKETS, weightedShare(all)));
  const isActive = new Set(active.map((t) => t.name));
  const orphans = base.flatMap((t, i) => (isActive.has(t.name) ? [] : [i]));
  const heirs = spread(active, apportion(orphans.length, weightedShare(active)));
  const owners = [...base];
  orphans.forEach((bucket, i) => (owners[bucket] = heirs[i]!));
  return ranges(owners);
}
