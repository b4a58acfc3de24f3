// The `nexthops` attribute of a multipath (ECMP) route artifact, in one canonical order so that what a
// kind asks for and what the observer reads from `ip -j route` compare equal whatever order either used.

export interface NextHop {
  gateway: string;
  device?: string;
  /** 1-256, the kernel's share of flows; 1 when not given. */
  weight: number;
}

export function sortNextHops<T extends { gateway: string; device?: string }>(hops: readonly T[]): T[] {
  return [...hops].sort((x, y) => (x.gateway === y.gateway ? (x.device ?? "").localeCompare(y.device ?? "") : x.gateway.localeCompare(y.gateway)));
}
