// routerd.dns.v1.Resolver: the runtime's counters and health mapped to the generated types, cache flush
// and lookups.
import { status as grpcStatus } from "@grpc/grpc-js";
import type { GetStatsResponse, ResolverServer, Upstream as ProtoUpstream } from "@routerd/rpc/gen/routerd/dns/v1/resolver";
import { LookupError, lookup } from "./lookup.js";
import type { ResolverRuntime } from "./runtime.js";
import type { Upstream } from "./upstream/upstream.js";
import { nameFromText } from "./wire/name.js";

const round = (n: number): number => Math.round(n * 1000) / 1000;

export function upstreamView(u: Upstream): ProtoUpstream {
  const h = u.health;
  return {
    name: u.name,
    url: u.url,
    protocol: u.config.protocol,
    state: h.state,
    stateSince: new Date(h.since),
    srttMs: round(h.srttMs),
    queries: h.counters.queries,
    answers: h.counters.answers,
    failures: h.counters.failures,
    timeouts: h.counters.timeouts,
    meanLatencyMs: round(h.meanLatencyMs()),
    maxLatencyMs: round(h.counters.latencyMaxMs),
    lastError: h.lastError,
  };
}

/** Process memory in KiB, as gauges next to the counters (the resolver's footprint is a target). */
function memoryGauges(): Record<string, number> {
  const m = process.memoryUsage();
  const kib = (n: number) => Math.round(n / 1024);
  return { rssKiB: kib(m.rss), heapUsedKiB: kib(m.heapUsed), heapTotalKiB: kib(m.heapTotal), externalKiB: kib(m.external) };
}

export function statsView(rt: ResolverRuntime): GetStatsResponse {
  const r = rt.resolver;
  return {
    counters: { ...r.stats.snapshot(), inflight: r.inflightCount(), ...memoryGauges() },
    cacheEntries: r.cache.size,
    cacheBytes: r.cache.bytes,
    cacheEvictions: r.cache.evictions,
    listeners: rt.listeners.states().map((l) => ({ name: l.listener, address: l.address, port: l.port, bound: l.bound, error: l.error ?? "" })),
    zones: rt.zoneStates().map((z) => ({ name: z.name, zone: z.zone, records: z.records, dhcpNames: z.dhcpNames, ...(z.updatedAt ? { updatedAt: new Date(z.updatedAt) } : {}) })),
    upstreams: rt.config.metrics.perUpstream ? rt.upstreamList().map(upstreamView) : [],
    startedAt: new Date(r.stats.startedAt),
    tcpConnections: rt.listeners.tcpConnections(),
  };
}

export function resolverServer(runtime: () => ResolverRuntime | undefined): ResolverServer {
  const unavailable = { code: grpcStatus.UNAVAILABLE, details: "resolver not started" };
  return {
    getStats(_call, callback) {
      const rt = runtime();
      if (rt === undefined) return callback(unavailable);
      callback(null, statsView(rt));
    },
    flush(call, callback) {
      const rt = runtime();
      if (rt === undefined) return callback(unavailable);
      const name = call.request.name;
      let removed: number;
      try {
        removed = rt.resolver.flush(name === "" ? undefined : nameFromText(name));
      } catch (err) {
        return callback({ code: grpcStatus.INVALID_ARGUMENT, details: (err as Error).message });
      }
      callback(null, { removed });
    },
    lookup(call, callback) {
      const rt = runtime();
      if (rt === undefined) return callback(unavailable);
      lookup(rt.resolver, call.request.name, call.request.type, call.request.dnssecOk).then(
        (res) => callback(null, res),
        (err: Error) => callback({ code: err instanceof LookupError ? grpcStatus.INVALID_ARGUMENT : grpcStatus.INTERNAL, details: err.message }),
      );
    },
  };
}
