// The OTEL_* environment routerd gives the units and daemons it manages (the OpenTelemetry SDK's standard
// variables), derived from the pipeline settings. Pure.
import type { PipelineSettings } from "./settings.js";

const enc = (s: string) => encodeURIComponent(s);

export function otelEnvironment(settings: PipelineSettings, serviceName?: string): Record<string, string> {
  const o = settings.otlp;
  if (!o) return {};
  const resource = { "service.namespace": settings.serviceNamespace, ...settings.attributes };
  const has = (s: "logs" | "metrics" | "traces") => (o.signals.includes(s) ? "otlp" : "none");
  return {
    ...(serviceName ? { OTEL_SERVICE_NAME: serviceName } : {}),
    OTEL_RESOURCE_ATTRIBUTES: Object.entries(resource).map(([k, v]) => `${k}=${enc(v)}`).join(","),
    OTEL_EXPORTER_OTLP_ENDPOINT: o.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
    ...(Object.keys(o.headers).length ? { OTEL_EXPORTER_OTLP_HEADERS: Object.entries(o.headers).map(([k, v]) => `${k}=${enc(v)}`).join(",") } : {}),
    OTEL_LOGS_EXPORTER: has("logs"),
    OTEL_METRICS_EXPORTER: has("metrics"),
    OTEL_TRACES_EXPORTER: has("traces"),
    OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
    OTEL_TRACES_SAMPLER_ARG: String(o.samplingRate),
  };
}

/** As an EnvironmentFile for systemd units (KEY="value" lines). */
export function environmentFile(env: Record<string, string>): string {
  return Object.entries(env).map(([k, v]) => `${k}="${v.replace(/["\\]/g, (c) => `\\${c}`)}"\n`).join("");
}
