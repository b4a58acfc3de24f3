// The resolver's counters (GetStatus details, `routerctl dns stats`). Plain integer fields: incrementing
// one is the only cost on the hot path.

export class ResolverStats {
  queries = 0;
  udpQueries = 0;
  tcpQueries = 0;
  /** Batches of UDP datagrams the native helper handed over (0 on node:dgram). */
  udpBatches = 0;
  /** Answered from the forwarding cache (fresh). */
  cacheHits = 0;
  /** Forwarded because nothing usable was cached. */
  cacheMisses = 0;
  /** Answered from local zones. */
  localAnswers = 0;
  staleAnswers = 0;
  prefetches = 0;
  /** Misses that joined an identical query already on its way upstream. */
  coalesced = 0;
  refused = 0;
  servfail = 0;
  nxdomain = 0;
  formerr = 0;
  notimp = 0;
  dropped = 0;
  /** Misses answered SERVFAIL at once because too many were already on their way upstream. */
  overloaded = 0;
  truncated = 0;
  /** Upstream replies that did not match a pending query (possible spoofing). */
  mismatchedReplies = 0;
  /** Queries the slow path failed on unexpectedly (a bug: they got no answer). */
  internalErrors = 0;
  dnssecSecure = 0;
  dnssecBogus = 0;
  startedAt = Date.now();

  snapshot(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(this)) if (typeof v === "number" && k !== "startedAt") out[k] = v;
    return out;
  }
}
