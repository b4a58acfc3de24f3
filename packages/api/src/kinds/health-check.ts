import { artifactNames } from "@routerd/resource";
import { durationMs, formats } from "../formats.js";
import { isIP } from "node:net";
import { API_GROUPS, defineKind, type ConfigView } from "../kind.js";
import { dhcpClientOn, leaseRoutes } from "./dhcpv4-client.js";
import { t, type Infer } from "../schema.js";

/** All HealthCheck resources run in one routerd-healthcheck instance. */
export const HEALTHCHECK_DAEMON = { daemon: "healthcheck", instance: "default" } as const;

export const healthCheckSpec = t.object({
  type: t.optional(t.enum("icmp", "tcp", "http", "https", "dns", "ping").describe("the probe (ping: the original's spelling, with protocol; default icmp)")),
  protocol: t.optional(t.enum("icmp", "tcp", "http", "https", "dns").describe("the original's name for the probe type (with type: ping)")),
  target: t.optional(t.string({ minLength: 1, maxLength: 253 }).describe("address or host name to probe (or targetSource)")),
  targetSource: t.optional(
    t.checked(t.enum("auto", "static", "defaultGateway", "dsliteRemote"), (v) =>
      v === "dsliteRemote" ? { message: "routerd has no DSLiteTunnel to take the remote from yet", hint: "write the AFTR address as target" } : undefined,
    ).describe("static: target; defaultGateway: the lease router of the DHCPv4Client on interface; auto: target if set, else defaultGateway"),
  ),
  role: t.optional(t.enum("link", "next-hop", "internet", "service", "policy").describe("what the check watches (published; routerd treats all alike)")),
  addressFamily: t.optional(t.enum("ipv4", "ipv6").describe("the family of the target (checked against a literal target)")),
  enabled: t.withDefault(t.bool().describe("false: the probe does not run, and a candidate using it counts as unchecked"), true),
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
export type ProbeType = "icmp" | "tcp" | "http" | "https" | "dns";

/** The probe: protocol (the original's), else type unless it is the original's "ping", else icmp. */
export function probeType(spec: HealthCheckSpec): ProbeType {
  return spec.protocol ?? (spec.type === undefined || spec.type === "ping" ? "icmp" : spec.type);
}

/** The address probed: the target, or (defaultGateway, or auto without a target) the lease router of the interface's DHCPv4Client. */
export function probeTarget(spec: HealthCheckSpec, view: ConfigView): string | undefined {
  const source = spec.targetSource ?? "auto";
  if (source === "static" || (source === "auto" && spec.target !== undefined)) return spec.target;
  const client = spec.interface ? dhcpClientOn(view, spec.interface) : undefined;
  const lease = client ? view.runtime.dhcpv4Lease(client.metadata.name) : undefined;
  return lease?.state === "present" ? leaseRoutes(lease.value).find((r) => r.destination === "0.0.0.0/0")?.gateway : undefined;
}

const DEFAULT_PORTS: Record<string, number | undefined> = { http: 80, https: 443, dns: 53 };

export const healthCheckKind = defineKind<HealthCheckSpec>({
  apiVersion: API_GROUPS.net,
  kind: "HealthCheck",
  description: "A probe (ICMP, TCP, HTTP(S), DNS) with thresholds; EgressRoutePolicy candidates follow its state.",
  class: "probe",
  contract: { type: "ArtifactKinds", artifactKinds: ["routerd.daemon"] },
  supportsWhen: true,
  spec: healthCheckSpec,
  status: (res, ctx) => {
    const s = res.spec;
    return { fields: { role: s.role, target: probeTarget(s, ctx), sourceAddress: s.sourceAddress, sourceInterface: s.interface && ctx.ifname(s.interface), protocol: probeType(s) } };
  },
  provides: { role: "string", target: "string", sourceAddress: "string", sourceInterface: "string", protocol: "string", consecutiveFailed: "int", lastCheckedAt: "timestamp" },
  check(res, ctx) {
    const s = res.spec;
    const type = probeType(s);
    if (s.protocol !== undefined && s.type !== undefined && s.type !== "ping" && s.type !== s.protocol) ctx.error(["protocol"], `type is ${s.type}`, "keep one of type and protocol (or write type: ping with protocol)");
    if (type === "tcp" && s.port === undefined) ctx.error(["port"], "is required for a tcp probe");
    if (s.path !== undefined && type !== "http" && type !== "https") ctx.error(["path"], "only applies to http and https probes");
    if (s.expectStatus !== undefined && type !== "http" && type !== "https") ctx.error(["expectStatus"], "only applies to http and https probes");
    if (s.query !== undefined && type !== "dns") ctx.error(["query"], "only applies to dns probes");
    if (type === "dns" && s.query === undefined) ctx.error(["query"], "is required for a dns probe", "e.g. query: {name: example.com}");
    if (type === "icmp" && s.port !== undefined) ctx.error(["port"], "an icmp probe has no port");
    const source = s.targetSource ?? "auto";
    if (source === "static" && s.target === undefined) ctx.error(["target"], "is required with targetSource: static");
    if (source === "defaultGateway" && s.target !== undefined) ctx.error(["target"], "targetSource: defaultGateway takes the lease's router", "remove target, or write targetSource: static");
    if ((source === "defaultGateway" || (source === "auto" && s.target === undefined)) && !(s.interface && dhcpClientOn(ctx, s.interface))) {
      ctx.error(s.target === undefined ? ["target"] : ["targetSource"], "needs a target, or a DHCPv4Client on interface whose lease gives the default gateway");
    }
    const family = s.target ? isIP(s.target) : 0;
    if (s.addressFamily && family && `ipv${family}` !== s.addressFamily) ctx.error(["addressFamily"], `the target ${s.target} is an IPv${family} address`);
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
  return spec.port ?? DEFAULT_PORTS[probeType(spec)];
}
