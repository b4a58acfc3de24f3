import { durationMs, formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { fromSources } from "../status-source.js";
import { ipNetwork, resolverDaemonIntent } from "./dns-common.js";

const ttl = (fallback: string, description: string) => t.withDefault(formats.duration().describe(description), fallback);

export const dnsResolverSpec = t.object({
  listen: t
    .array(
      t.object({
        name: t.optional(t.string({ pattern: /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, patternHint: "a listener name" }).describe("label for status and logs")),
        addresses: t.withDefault(t.array(formats.ip(), { unique: true }).describe("addresses to answer on (UDP and TCP)"), []),
        addressFrom: t.optional(fromSources({ format: "ip", into: "addresses" }).describe("more addresses from status, e.g. {resource: Interface/lan, field: primaryIPv4}")),
        port: t.withDefault(formats.port(), 53),
        sources: t.optional(
          t.array(ipNetwork(), { minItems: 1 }).describe("client networks allowed to query; others get REFUSED (default: loopback and private networks)"),
        ),
      }),
      { minItems: 1 },
    )
    .describe("where the resolver answers"),
  cache: t.withDefault(
    t.object({
      enabled: t.withDefault(t.bool(), true),
      maxEntries: t.withDefault(t.int({ min: 1, max: 10_000_000 }).describe("answers kept (least recently used go first)"), 10_000),
      minTTL: ttl("0s", "answers are kept at least this long"),
      maxTTL: ttl("24h", "and at most this long"),
      negativeTTL: ttl("1h", "upper bound for NXDOMAIN/NODATA answers (RFC 2308)"),
    }),
    { enabled: true, maxEntries: 10_000, minTTL: "0s", maxTTL: "24h", negativeTTL: "1h" },
  ),
  metrics: t.withDefault(t.object({ perUpstream: t.withDefault(t.bool().describe("latency and failure counters per upstream"), true) }), { perUpstream: true }),
  queryLog: t.withDefault(
    t.object({
      enabled: t.withDefault(t.bool(), false),
      path: t.optional(t.string({ pattern: /^\//, patternHint: "an absolute path" }).describe("JSON lines file (default /var/log/routerd/dns-<name>.jsonl)")),
    }),
    { enabled: false },
  ),
});

export type DNSResolverSpec = Infer<typeof dnsResolverSpec>;

/** Clients allowed when a listener names no sources: loopback and private/link-local networks. */
export const DEFAULT_DNS_SOURCES = ["127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16", "fc00::/7", "fe80::/10"];

export const dnsResolverKind = defineKind<DNSResolverSpec>({
  apiVersion: API_GROUPS.net,
  kind: "DNSResolver",
  description: "The LAN's DNS resolver: one routerd-dns-resolver answering on the listen addresses from local zones, the cache and forwarders.",
  class: "lan-service",
  contract: { type: "ArtifactKinds", artifactKinds: ["routerd.daemon"] },
  supportsWhen: false,
  spec: dnsResolverSpec,
  check(res, ctx) {
    const s = res.spec;
    s.listen.forEach((l, i) => {
      if (l.addresses.length === 0 && l.addressFrom === undefined) ctx.error(["listen", i, "addresses"], "must list at least one address", "addresses: [192.168.1.1], or addressFrom: [{resource: Interface/lan, field: primaryIPv4}]");
    });
    const seen = new Map<string, string>();
    for (const other of ctx.all<DNSResolverSpec>("DNSResolver")) {
      for (const l of other.spec.listen) for (const a of l.addresses) if (!seen.has(`${a}|${l.port}`)) seen.set(`${a}|${l.port}`, other.metadata.name);
    }
    s.listen.forEach((l, i) =>
      l.addresses.forEach((a, j) => {
        const first = seen.get(`${a}|${l.port}`);
        if (first !== undefined && first !== res.metadata.name) ctx.error(["listen", i, "addresses", j], `${a} port ${l.port} is already DNSResolver/${first}'s`);
      }),
    );
    if (durationMs(s.cache.minTTL) > durationMs(s.cache.maxTTL)) ctx.error(["cache", "minTTL"], `is longer than maxTTL (${s.cache.maxTTL})`);
    if (durationMs(s.cache.maxTTL) > 7 * 86_400_000) ctx.error(["cache", "maxTTL"], "must be at most 168h (a week)");
    if (durationMs(s.cache.negativeTTL) > 86_400_000) ctx.error(["cache", "negativeTTL"], "must be at most 24h");
    if (!ctx.all<{ resolver: string }>("DNSForwarder").some((f) => f.spec.resolver === res.metadata.name) && ctx.all("DNSZone").length === 0) {
      ctx.warn([], "no DNSForwarder or DNSZone: the resolver answers REFUSED to every name");
    }
  },
  intents: (res) => [resolverDaemonIntent(res.owner, res.metadata.name)],
  status: (res) => ({
    fields: {
      listeners: res.spec.listen.length,
      listenAddresses: [...new Set(res.spec.listen.flatMap((l) => l.addresses))],
      sources: res.spec.listen.reduce((n, l) => n + (l.sources ?? DEFAULT_DNS_SOURCES).length, 0),
    },
  }),
  provides: { listeners: "int", listenAddresses: "stringList", sources: "int", updatedAt: "timestamp" },
});
