import { artifactNames } from "@routerd/resource";
import { durationMs, formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";

/** All HealthCheck resources run in one routerd-healthcheck instance. */
export const HEALTHCHECK_DAEMON = { daemon: "healthcheck", instance: "default" } as const;

export const healthCheckSpec = t.object({
  type: t.enum("icmp", "tcp", "http", "https", "dns"),
  target: t.string({ minLength: 1, maxLength: 253 }).describe("address or host name to probe"),
  port: t.optional(formats.port()),
  path: t.optional(t.string({ pattern: /^\//, patternHint: "an absolute URL path" })),
  expectStatus: t.optional(t.array(t.int({ min: 100, max: 599 }), { minItems: 1 }).describe("HTTP statuses counted as success (default 200-399)")),
  query: t.optional(t.object({ name: formats.hostname(), type: t.withDefault(t.enum("A", "AAAA", "NS", "SOA", "TXT"), "A") })),
  interval: t.withDefault(formats.duration(), "5s"),
  timeout: t.withDefault(formats.duration(), "1s"),
  healthyThreshold: t.withDefault(t.int({ min: 1, max: 100 }), 2),
  unhealthyThreshold: t.withDefault(t.int({ min: 1, max: 100 }), 3),
  sourceAddress: t.optional(formats.ipv4()),
  interface: t.optional(t.interfaceRef().describe("bind the probe to this interface")),
  fwmark: t.optional(formats.fwmark().describe("mark probe packets so policy routing sends them out one uplink")),
});

export type HealthCheckSpec = Infer<typeof healthCheckSpec>;

const DEFAULT_PORTS: Record<string, number | undefined> = { http: 80, https: 443, dns: 53 };

export const healthCheckKind = defineKind<HealthCheckSpec>({
  apiVersion: API_GROUPS.net,
  kind: "HealthCheck",
  description: "A probe (ICMP, TCP, HTTP(S), DNS) with thresholds; EgressRoutePolicy candidates follow its state.",
  class: "probe",
  contract: { type: "ArtifactKinds", artifactKinds: ["routerd.daemon"] },
  supportsWhen: false,
  spec: healthCheckSpec,
  status: (res, ctx) => {
    const s = res.spec;
    return { fields: { target: s.target, sourceAddress: s.sourceAddress, sourceInterface: s.interface && ctx.ifname(s.interface), protocol: s.type } };
  },
  provides: { role: "string", target: "string", sourceAddress: "string", sourceInterface: "string", protocol: "string", consecutiveFailed: "int", lastCheckedAt: "timestamp" },
  check(res, ctx) {
    const s = res.spec;
    if (s.type === "tcp" && s.port === undefined) ctx.error(["port"], "is required for a tcp probe");
    if (s.path !== undefined && s.type !== "http" && s.type !== "https") ctx.error(["path"], "only applies to http and https probes");
    if (s.expectStatus !== undefined && s.type !== "http" && s.type !== "https") ctx.error(["expectStatus"], "only applies to http and https probes");
    if (s.query !== undefined && s.type !== "dns") ctx.error(["query"], "only applies to dns probes");
    if (s.type === "dns" && s.query === undefined) ctx.error(["query"], "is required for a dns probe");
    if (s.type === "icmp" && s.port !== undefined) ctx.error(["port"], "an icmp probe has no port");
    if (durationMs(s.timeout) >= durationMs(s.interval)) ctx.error(["timeout"], `must be shorter than interval (${s.interval})`);
  },
  intents: (res) => [
    {
      kind: "routerd.daemon",
      name: artifactNames.daemon(HEALTHCHECK_DAEMON.daemon, HEALTHCHECK_DAEMON.instance),
      owner: res.owner,
      action: "ensure",
      applyWith: "supervisor",
      attributes: { ...HEALTHCHECK_DAEMON },
    },
  ],
});

export function probePort(spec: HealthCheckSpec): number | undefined {
  return spec.port ?? DEFAULT_PORTS[spec.type];
}
