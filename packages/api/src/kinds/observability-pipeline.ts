// Where routerd's own events, logs and metrics go: log sinks (stdout, syslog, Loki, Kafka), a Prometheus
// text endpoint and OTLP/HTTP. The pipeline runs inside routerd serve and every daemon (package
// @routerd/telemetry); this kind only describes it, and owns nothing on the host.
import { artifactNames } from "@routerd/resource";
import { API_GROUPS, defineKind, type ConfigView } from "../kind.js";
import { t, type Infer } from "../schema.js";

export const LOG_LEVELS = ["debug", "info", "warning", "error"] as const;
export const SINK_TYPES = ["stdout", "syslog", "loki", "kafka"] as const;
export const SIGNALS = ["logs", "metrics", "traces"] as const;
export const SYSLOG_FACILITIES = [
  "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron", "authpriv", "ftp",
  "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7",
] as const;

/** Where syslog goes when the sink names no address: the local syslog daemon's socket. */
export const DEFAULT_SYSLOG_SOCKET = "/dev/log";

const label = () => t.string({ pattern: /^[a-zA-Z_][a-zA-Z0-9_]*$/, patternHint: "a label name like site or router_role (letters, digits, _)" });
const header = () => t.string({ pattern: /^[A-Za-z0-9-]+$/, patternHint: "an HTTP header name like Authorization" });
const url = () => t.string({ pattern: /^https?:\/\/[^\s/]+(\/\S*)?$/, patternHint: "an http:// or https:// URL like http://127.0.0.1:3100" });

const sinkSpec = t.object({
  name: t.optional(t.string({ pattern: /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, patternHint: "a short name like loki-main" }).describe("names the sink in status and metrics (default: its type)")),
  type: t.enum(...SINK_TYPES).describe("where the records go"),
  enabled: t.withDefault(t.bool().describe("false keeps the sink configured but sends nothing"), true),
  minLevel: t.withDefault(t.enum(...LOG_LEVELS).describe("records below this level are not sent"), "info"),
  labels: t.withDefault(t.map(label(), t.string()).describe("constant labels (Loki stream labels; fields elsewhere)"), {}),
  syslog: t.optional(
    t.object({
      network: t.withDefault(t.enum("unix", "unixgram", "tcp", "udp").describe("unix and unixgram: a datagram socket path; tcp and udp: host:port"), "unixgram"),
      address: t.withDefault(t.string({ minLength: 1 }).describe("socket path, or host:port for tcp/udp"), DEFAULT_SYSLOG_SOCKET),
      facility: t.withDefault(t.enum(...SYSLOG_FACILITIES), "daemon"),
      tag: t.withDefault(t.string({ pattern: /^[!-~]{1,48}$/, patternHint: "1-48 printable characters without spaces" }).describe("APP-NAME of each message"), "routerd"),
    }),
  ),
  loki: t.optional(
    t.object({
      url: t.optional(url().describe("Loki's base URL; records go to <url>/loki/api/v1/push")),
      tenant: t.optional(t.string({ minLength: 1 }).describe("sent as X-Scope-OrgID")),
      headers: t.withDefault(t.map(header(), t.string()), {}),
    }),
  ),
  kafka: t.optional(
    t.object({
      brokers: t.withDefault(t.array(t.string({ pattern: /^[^\s:]+:[0-9]{1,5}$/, patternHint: "host:port" }), { unique: true }), []),
      topic: t.optional(t.string({ pattern: /^[a-zA-Z0-9._-]{1,249}$/, patternHint: "a Kafka topic name" })),
    }),
  ),
});

export const observabilityPipelineSpec = t.object({
  signals: t.withDefault(t.array(t.enum(...SIGNALS), { unique: true }).describe("what is exported: logs (sinks, OTLP logs), metrics (Prometheus endpoint, OTLP metrics), traces (OTLP)"), ["logs"] as Array<(typeof SIGNALS)[number]>),
  serviceNamespace: t.optional(t.string({ minLength: 1 }).describe("OTLP service.namespace (default routerd)")),
  attributes: t.withDefault(t.map(t.string({ pattern: /^[A-Za-z_][A-Za-z0-9_.]*$/, patternHint: "an attribute name like site or deployment.environment" }), t.string()).describe("added to every record and as OTLP resource attributes"), {}),
  logs: t.withDefault(
    t.object({
      enabled: t.withDefault(t.bool(), true),
      sinks: t.withDefault(t.array(sinkSpec), []),
    }),
    { enabled: true, sinks: [] },
  ),
  otlp: t.optional(
    t.object({
      endpoint: t.optional(url().describe("OTLP/HTTP base URL, e.g. http://127.0.0.1:4318 (signals go to /v1/logs, /v1/metrics, /v1/traces)")),
      headers: t.withDefault(t.map(header(), t.string()), {}),
      insecure: t.withDefault(t.bool().describe("allow plain http"), false),
      tls: t.optional(
        t.object({
          caFile: t.optional(t.string({ pattern: /^\//, patternHint: "an absolute path" })),
          certFile: t.optional(t.string({ pattern: /^\//, patternHint: "an absolute path" })),
          keyFile: t.optional(t.string({ pattern: /^\//, patternHint: "an absolute path" })),
          insecureSkipVerify: t.withDefault(t.bool(), false),
        }),
      ),
    }),
  ),
  sampling: t.optional(t.object({ rate: t.withDefault(t.number({ min: 0, max: 1 }).describe("share of traces kept, 0..1"), 1) })),
});

export type ObservabilityPipelineSpec = Infer<typeof observabilityPipelineSpec>;
type SinkSpec = ObservabilityPipelineSpec["logs"]["sinks"][number];

/** The sink's name in status and metrics. */
export function sinkName(sink: SinkSpec): string {
  return sink.name ?? sink.type;
}

/** What the runtime (@routerd/telemetry) is given: every enabled pipeline's settings, merged. JSON-safe. */
export interface TelemetrySettings {
  sinks: Array<{
    pipeline: string;
    name: string;
    type: (typeof SINK_TYPES)[number];
    minLevel: (typeof LOG_LEVELS)[number];
    labels: Record<string, string>;
    syslog?: { network: "unix" | "unixgram" | "tcp" | "udp"; address: string; facility: (typeof SYSLOG_FACILITIES)[number]; tag: string };
    loki?: { url: string; tenant?: string; headers: Record<string, string> };
    kafka?: { brokers: string[]; topic: string };
  }>;
  metrics: boolean;
  attributes: Record<string, string>;
  serviceNamespace: string;
  otlp?: {
    pipeline: string;
    endpoint: string;
    headers: Record<string, string>;
    signals: Array<(typeof SIGNALS)[number]>;
    samplingRate: number;
    tls?: { caFile?: string; certFile?: string; keyFile?: string; insecureSkipVerify: boolean };
  };
}

/** The telemetry settings of a config's (active) ObservabilityPipelines; pure. */
export function telemetrySettings(view: ConfigView): TelemetrySettings {
  const out: TelemetrySettings = { sinks: [], metrics: false, attributes: {}, serviceNamespace: "routerd" };
  for (const r of view.all<ObservabilityPipelineSpec>("ObservabilityPipeline")) {
    const s = r.spec;
    Object.assign(out.attributes, s.attributes);
    if (s.serviceNamespace) out.serviceNamespace = s.serviceNamespace;
    if (s.signals.includes("metrics")) out.metrics = true;
    if (s.signals.includes("logs") && s.logs.enabled) {
      for (const k of s.logs.sinks) {
        if (!k.enabled) continue;
        out.sinks.push({
          pipeline: r.metadata.name,
          name: sinkName(k),
          type: k.type,
          minLevel: k.minLevel,
          labels: k.labels,
          ...(k.type === "syslog" ? { syslog: k.syslog ?? { network: "unixgram", address: DEFAULT_SYSLOG_SOCKET, facility: "daemon", tag: "routerd" } } : {}),
          ...(k.type === "loki" && k.loki?.url ? { loki: { url: k.loki.url, headers: k.loki.headers, ...(k.loki.tenant ? { tenant: k.loki.tenant } : {}) } } : {}),
          ...(k.type === "kafka" && k.kafka?.topic ? { kafka: { brokers: k.kafka.brokers, topic: k.kafka.topic } } : {}),
        });
      }
    }
    if (s.otlp?.endpoint && !out.otlp) {
      out.otlp = { pipeline: r.metadata.name, endpoint: s.otlp.endpoint, headers: s.otlp.headers, signals: s.signals, samplingRate: s.sampling?.rate ?? 1, ...(s.otlp.tls ? { tls: s.otlp.tls } : {}) };
    }
  }
  return out;
}

const isPath = (v: string) => v.startsWith("/");
const isHostPort = (v: string) => /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):[0-9]{1,5}$/.test(v);

export const observabilityPipelineKind = defineKind<ObservabilityPipelineSpec>({
  apiVersion: API_GROUPS.system,
  kind: "ObservabilityPipeline",
  description: "Where routerd's events, logs and metrics go: stdout, syslog, Loki and Kafka sinks with bounded buffers, a Prometheus endpoint, OTLP/HTTP.",
  class: "system",
  contract: { type: "NoHostTeardownReason", reason: "the pipeline runs inside routerd serve and its daemons; it creates nothing on the host" },
  supportsWhen: true,
  spec: observabilityPipelineSpec,
  provides: { signals: "stringList", sinks: "objectList" },
  status: (res, _ctx, facts) => ({ fields: { signals: res.spec.signals, ...(facts?.sinks ? { sinks: facts.sinks } : {}) } }),
  check(res, ctx) {
    const s = res.spec;
    const names = new Map<string, number>();
    s.logs.sinks.forEach((k, i) => {
      const at = (...p: (string | number)[]) => ["logs", "sinks", i, ...p];
      for (const other of ["syslog", "loki", "kafka"] as const) {
        if (other !== k.type && k[other] !== undefined) ctx.error(at(other), `belongs to a ${other} sink; this one is type ${k.type}`, `remove ${other}, or set type: ${other}`);
      }
      const name = sinkName(k);
      const first = names.get(name);
      if (first !== undefined) ctx.error(at("name"), `sink ${name} is already logs.sinks[${first}]`, "give each sink its own name");
      else names.set(name, i);
      if (k.type === "loki" && !k.loki?.url) ctx.error(at("loki"), "a loki sink needs loki.url", "loki: {url: http://127.0.0.1:3100}");
      if (k.type === "kafka" && (!k.kafka?.topic || !k.kafka.brokers.length)) ctx.error(at("kafka"), "a kafka sink needs kafka.brokers and kafka.topic", "kafka: {brokers: [10.0.0.5:9092], topic: routerd}");
      const sys = k.syslog;
      if (k.type === "syslog" && sys) {
        const stream = sys.network === "unix" || sys.network === "unixgram";
        if (stream && !isPath(sys.address)) ctx.error(at("syslog", "address"), `network ${sys.network} needs a socket path`, "address: /dev/log");
        if (!stream && !isHostPort(sys.address)) ctx.error(at("syslog", "address"), `network ${sys.network} needs host:port`, "address: 127.0.0.1:514");
      }
    });
    if (s.signals.includes("traces") && !s.otlp?.endpoint) ctx.error(["signals"], "traces are exported over OTLP only: otlp.endpoint is missing", "otlp: {endpoint: http://127.0.0.1:4318}, or remove traces");
    if (s.otlp && !s.otlp.endpoint) ctx.error(["otlp", "endpoint"], "otlp needs an endpoint", "endpoint: http://127.0.0.1:4318");
    if (s.otlp?.endpoint?.startsWith("http://") && !s.otlp.insecure) {
      ctx.error(["otlp", "endpoint"], "a plain http endpoint sends telemetry unencrypted", "use https://, or set insecure: true");
    }
    const tls = s.otlp?.tls;
    if (tls && Boolean(tls.certFile) !== Boolean(tls.keyFile)) ctx.error(["otlp", "tls"], "a client certificate needs both certFile and keyFile", "set both, or neither");
    if (tls && s.otlp?.endpoint?.startsWith("http://")) ctx.warn(["otlp", "tls"], "tls applies to https:// endpoints only; this one is plain http", "use https://, or remove tls");
    if (tls?.insecureSkipVerify) ctx.warn(["otlp", "tls", "insecureSkipVerify"], "the collector's certificate is not verified: anyone on the path can read and change the telemetry", "set caFile to the collector's CA instead");
    if (s.sampling && !s.signals.includes("traces")) ctx.warn(["sampling"], "sampling applies to traces, which this pipeline does not export");
    for (const other of ctx.all<ObservabilityPipelineSpec>("ObservabilityPipeline")) {
      if (other.index >= res.index || !other.spec.otlp?.endpoint || !s.otlp?.endpoint) continue;
      ctx.error(["otlp"], `ObservabilityPipeline/${other.metadata.name} already exports OTLP; routerd exports to one OTLP endpoint`, "keep otlp in one pipeline");
    }
  },
  // The pipeline lives in routerd serve (and each daemon): it watches the core, and owns nothing itself.
  intents: (res) => [
    {
      kind: "routerd.daemon",
      name: artifactNames.daemon("routerd", "core"),
      owner: res.owner,
      action: "observe",
      applyWith: "supervisor",
      attributes: { daemon: "routerd", instance: "core" },
    },
  ],
});
