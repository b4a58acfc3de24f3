// The OpenTelemetry SDK side of OTLP export, loaded only when a pipeline configures `otlp` (otlp/export.ts
// imports this module dynamically: a daemon without OTLP never pays for the SDK). Records, reconcile traces
// and metric snapshots arrive here in batches from routerd's bounded sinks; each batch becomes SDK log
// records, spans or ResourceMetrics through the SDK's own providers, and one OTLP/HTTP (protobuf) export.
import { readFileSync } from "node:fs";
import { ROOT_CONTEXT, SpanStatusCode, trace, type Attributes, type ObservableResult } from "@opentelemetry/api";
import { SeverityNumber } from "@opentelemetry/api-logs";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { LoggerProvider, type LogRecordProcessor, type ReadableLogRecord, type SdkLogRecord } from "@opentelemetry/sdk-logs";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type ReadableSpan, type SpanProcessor } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME, ATTR_SERVICE_NAMESPACE } from "@opentelemetry/semantic-conventions";
import type { MetricFamily } from "../encode/prometheus.js";
import type { Level, TelemetryRecord } from "../record.js";
import type { OtlpSettings } from "../settings.js";
import type { MetricSnapshot, OtlpRuntime, OtlpSource } from "./export.js";
import type { SpanRecord } from "./span.js";

const SCOPE = "routerd";

const SEVERITY: Record<Level, SeverityNumber> = {
  debug: SeverityNumber.DEBUG,
  info: SeverityNumber.INFO,
  warning: SeverityNumber.WARN,
  error: SeverityNumber.ERROR,
};

/** Collects what the SDK hands its processors, synchronously: the batch is exported right after. */
class Collector<T> {
  items: T[] = [];
  take(): T[] {
    const out = this.items;
    this.items = [];
    return out;
  }
}

function logCollector(c: Collector<ReadableLogRecord>): LogRecordProcessor {
  return { onEmit: (r: SdkLogRecord) => void c.items.push(r), forceFlush: async () => undefined, shutdown: async () => undefined };
}

function spanCollector(c: Collector<ReadableSpan>): SpanProcessor {
  return { onStart: () => undefined, onEnd: (s) => void c.items.push(s), forceFlush: async () => undefined, shutdown: async () => undefined };
}

/** A reader that collects only when asked (each queued snapshot is one collection). */
class SnapshotReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

interface Exporter<T> {
  export(items: T, done: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
}

function exportOnce<T>(exporter: Exporter<T>, items: T): Promise<void> {
  return new Promise((resolve, reject) => {
    exporter.export(items, (result) => (result.code === ExportResultCode.SUCCESS ? resolve() : reject(result.error ?? new Error("OTLP export failed"))));
  });
}

/** https agent options from otlp.tls (files read once, when the SDK starts). */
function agentOptions(tls: OtlpSettings["tls"]): Record<string, unknown> {
  const read = (path: string | undefined) => (path ? readFileSync(path) : undefined);
  if (!tls) return { keepAlive: true };
  return {
    keepAlive: true,
    ...(tls.caFile ? { ca: read(tls.caFile) } : {}),
    ...(tls.certFile ? { cert: read(tls.certFile) } : {}),
    ...(tls.keyFile ? { key: read(tls.keyFile) } : {}),
    rejectUnauthorized: !tls.insecureSkipVerify,
  };
}

function recordAttributes(r: TelemetryRecord): Attributes {
  return {
    ...r.attributes,
    "routerd.kind": r.kind,
    "routerd.daemon": r.daemon,
    ...(r.topic ? { "routerd.topic": r.topic } : {}),
    ...(r.resource ? { "routerd.resource": r.resource } : {}),
    ...(r.seq !== undefined ? { "routerd.seq": r.seq } : {}),
  };
}

export function createRuntime(settings: OtlpSettings, source: OtlpSource, timeoutMs: number): OtlpRuntime {
  const resource = resourceFromAttributes({
    ...source.attributes,
    [ATTR_SERVICE_NAME]: source.serviceName,
    [ATTR_SERVICE_NAMESPACE]: source.serviceNamespace,
    [ATTR_SERVICE_INSTANCE_ID]: source.instanceId,
    "host.name": source.hostName,
  });
  const base = settings.endpoint.replace(/\/+$/, "");
  const common = { headers: settings.headers, timeoutMillis: timeoutMs, concurrencyLimit: 4, httpAgentOptions: agentOptions(settings.tls) };

  const logs = new Collector<ReadableLogRecord>();
  const loggerProvider = new LoggerProvider({ resource, processors: [logCollector(logs)] });
  const logger = loggerProvider.getLogger(SCOPE);
  const logExporter = new OTLPLogExporter({ ...common, url: `${base}/v1/logs` });

  const spans = new Collector<ReadableSpan>();
  const tracerProvider = new TracerProvider({
    resource,
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.samplingRate) }),
    spanProcessors: [spanCollector(spans)],
  });
  const tracer = tracerProvider.getTracer(SCOPE);
  const traceExporter = new OTLPTraceExporter({ ...common, url: `${base}/v1/traces` });

  const reader = new SnapshotReader();
  const meterProvider = new MeterProvider({ resource, readers: [reader] });
  const meter = meterProvider.getMeter(SCOPE);
  const metricExporter = new OTLPMetricExporter({ ...common, url: `${base}/v1/metrics` });
  // Instruments are created once per family name; their callbacks read the snapshot being exported.
  let current = new Map<string, MetricFamily>();
  const instruments = new Set<string>();
  const observe = (name: string) => (result: ObservableResult) => {
    for (const s of current.get(name)?.samples ?? []) result.observe(s.value, s.labels ?? {});
  };
  const ensureInstruments = (families: readonly MetricFamily[]) => {
    for (const f of families) {
      if (instruments.has(f.name)) continue;
      instruments.add(f.name);
      const instrument = f.type === "counter" ? meter.createObservableCounter(f.name, { description: f.help }) : meter.createObservableGauge(f.name, { description: f.help });
      instrument.addCallback(observe(f.name));
    }
  };

  return {
    async logs(records) {
      for (const r of records) {
        logger.emit({
          timestamp: new Date(r.time),
          severityNumber: SEVERITY[r.level],
          severityText: r.level.toUpperCase(),
          body: r.message,
          attributes: recordAttributes(r),
          ...(r.kind === "event" && r.topic ? { eventName: r.topic } : {}),
        });
      }
      const batch = logs.take();
      if (batch.length) await exportOnce(logExporter, batch);
    },
    async traces(records: readonly SpanRecord[]) {
      for (const r of records) {
        const root = tracer.startSpan(r.name, { startTime: r.start, attributes: r.attributes }, ROOT_CONTEXT);
        if (r.error) root.setStatus({ code: SpanStatusCode.ERROR, message: r.error });
        const parent = trace.setSpan(ROOT_CONTEXT, root);
        for (const c of r.children) tracer.startSpan(c.name, { startTime: c.start }, parent).end(c.end);
        root.end(r.end);
      }
      const batch = spans.take();
      if (batch.length) await exportOnce(traceExporter, batch);
    },
    async metrics(snapshots: readonly MetricSnapshot[]) {
      // Only the newest snapshot matters: counters are cumulative and gauges are "now".
      const last = snapshots.at(-1);
      if (!last) return;
      ensureInstruments(last.families);
      current = new Map(last.families.map((f) => [f.name, f]));
      const { resourceMetrics, errors } = await reader.collect({ timeoutMillis: timeoutMs });
      if (errors.length) throw errors[0] instanceof Error ? errors[0] : new Error(String(errors[0]));
      await exportOnce(metricExporter, resourceMetrics);
    },
    async shutdown() {
      await Promise.allSettled([logExporter.shutdown(), traceExporter.shutdown(), metricExporter.shutdown(), loggerProvider.shutdown(), tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}
