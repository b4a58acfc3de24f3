import { durationMs, formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { dnsName, fqdn, kindRef, resolverDaemonIntent } from "./dns-common.js";

export const dnsForwarderSpec = t.object({
  resolver: t.ref("DNSResolver"),
  match: t.array(dnsName(), { minItems: 1, unique: true }).describe('name suffixes this forwarder answers; "." is every name (the longest match wins)'),
  upstreams: t.withDefault(t.array(kindRef("DNSUpstream"), { unique: true }).describe("DNSUpstream/<name>, asked best-ranked first"), []),
  zoneRefs: t.withDefault(t.array(kindRef("DNSZone"), { unique: true }).describe("DNSZone/<name>: local zones answering these names"), []),
  dnssecValidate: t.withDefault(t.bool().describe("validate forwarded answers (DNSSEC); bogus answers become SERVFAIL"), false),
  healthcheck: t.withDefault(
    t.object({
      interval: t.withDefault(formats.duration(), "5s"),
      timeout: t.withDefault(formats.duration().describe("also how long one upstream gets before the next is asked"), "1s"),
      failThreshold: t.withDefault(t.int({ min: 1, max: 100 }), 3),
      passThreshold: t.withDefault(t.int({ min: 1, max: 100 }), 1),
    }),
    { interval: "5s", timeout: "1s", failThreshold: 3, passThreshold: 1 },
  ),
});

export type DNSForwarderSpec = Infer<typeof dnsForwarderSpec>;

export const dnsForwarderKind = defineKind<DNSForwarderSpec>({
  apiVersion: API_GROUPS.net,
  kind: "DNSForwarder",
  description: "Forwards the names under its match suffixes to DNSUpstreams (health-checked, failover) or answers them from local zones.",
  class: "lan-service",
  contract: { type: "ArtifactKinds", artifactKinds: ["routerd.daemon"] },
  supportsWhen: false,
  spec: dnsForwarderSpec,
  check(res, ctx) {
    const s = res.spec;
    if (s.upstreams.length === 0 && s.zoneRefs.length === 0) ctx.error(["upstreams"], "needs upstreams or zoneRefs", "upstreams: [DNSUpstream/isp]");
    const h = s.healthcheck;
    if (durationMs(h.timeout) >= durationMs(h.interval)) ctx.error(["healthcheck", "timeout"], `must be shorter than interval (${h.interval})`);
    if (durationMs(h.timeout) > 1800) ctx.error(["healthcheck", "timeout"], "must be at most 1800ms: clients get SERVFAIL within 2 s when no upstream answers");
    if (durationMs(h.interval) < 100) ctx.error(["healthcheck", "interval"], "must be at least 100ms");
    for (const other of ctx.all<DNSForwarderSpec>("DNSForwarder")) {
      if (other.index >= res.index || other.spec.resolver !== s.resolver) continue;
      s.match.forEach((m, i) => {
        if (other.spec.match.some((o) => fqdn(o).toLowerCase() === fqdn(m).toLowerCase())) ctx.error(["match", i], `${fqdn(m)} is already matched by DNSForwarder/${other.metadata.name}`);
      });
    }
  },
  intents: (res) => [resolverDaemonIntent(res.owner, res.spec.resolver)],
  status: (res) => ({ fields: { resolver: res.spec.resolver, upstreams: res.spec.upstreams.map((u) => `DNSUpstream/${u}`) } }),
  provides: { resolver: "string", upstreams: "stringList" },
});
