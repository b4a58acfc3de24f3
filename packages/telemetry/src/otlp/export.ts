// OTLP export of one process (routerd serve or a daemon): logs, reconcile traces and metric snapshots each go
// through their own bounded Sink (so a dead collector only costs counted drops, and status shows them as
// sinks otlp-logs, otlp-traces, otlp-metrics), then to the OpenTelemetry SDK in ./sdk.js. That module, and the
// SDK with it, is imported only here and only when `otlp` is configured.
import { hostname } from "node:os";
import type { MetricFamily } from "../encode/prometheus.js";
import type { TelemetryRecord } from "../record.js";
import type { OtlpSettings, OtlpSignal } from "../settings.js";
import { DEFAULT_LIMITS, Sink, type SinkLimits, type SinkStats } from "../sink.js";
import { withTimeout, type Transport } from "../transport/transport.js";
import type { SpanRecord } from "./span.js";

export interface OtlpSource {
  serviceName: string;
  serviceNamespace: string;
  instanceId: string;
  hostName: string;
  /** The pipelines' attributes: OTLP resource attributes. */
  attributes: Record<string, string>;
}

export interface MetricSnapshot {
  at: number;
  families: MetricFamily[];
}

/** What ./sdk.js builds: one export per batch of each signal. */
export interface OtlpRuntime {
  logs(records: readonly TelemetryRecord[]): Promise<void>;
  traces(spans: readonly SpanRecord[]): Promise<void>;
  metrics(snapshots: readonly MetricSnapshot[]): Promise<void>;
  shutdown(): Promise<void>;
}

/** Per-signal bounds: logs like any sink; a few traces per reconcile; metrics keep only recent snapshots. */
export const OTLP_LIMITS: Readonly<Record<OtlpSignal, SinkLimits>> = {
  logs: DEFAULT_LIMITS,
  traces: { ...DEFAULT_LIMITS, queueSize: 200, batchSize: 50 },
  metrics: { ...DEFAULT_LIMITS, queueSize: 4, batchSize: 4, flushIntervalMs: 100 },
};

/** The metric export interval: OTEL_METRIC_EXPORT_INTERVAL (ms, the SDK's standard variable), default 60 s. */
export function metricIntervalMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  return Number.isFinite(n) && n >= 1000 ? n : 60_000;
}

/** service.name: routerd for serve, routerd-<daemon> for a daemon (what OTEL_SERVICE_NAME says for its unit). */
export function otlpSource(daemon: string, instance: string, serviceNamespace: string, attributes: Record<string, string>): OtlpSource {
  const serviceName = daemon === "routerd" ? "routerd" : `routerd-${daemon}`;
  const hostName = hostname();
  return { serviceName, serviceNamespace, instanceId: `${hostName}/${serviceName}/${instance}`, hostName, attributes };
}

export class OtlpExport {
  private runtime?: Promise<OtlpRuntime>;
  private readonly logSink?: Sink<TelemetryRecord>;
  private readonly traceSink?: Sink<SpanRecord>;
  private readonly metricSink?: Sink<MetricSnapshot>;
  private readonly timer?: NodeJS.Timeout;

  constructor(
    private readonly settings: OtlpSettings,
    private readonly source: OtlpSource,
    private readonly families: () => MetricFamily[],
    options: { intervalMs?: number; limits?: Partial<Record<OtlpSignal, SinkLimits>> } = {},
  ) {
    const limits = { ...OTLP_LIMITS, ...options.limits };
    const has = (s: OtlpSignal) => settings.signals.includes(s);
    const all = () => true;
    if (has("logs")) this.logSink = new Sink("otlp-logs", "otlp", all, this.transport((rt, b: readonly TelemetryRecord[]) => rt.logs(b)), limits.logs);
    if (has("traces")) this.traceSink = new Sink("otlp-traces", "otlp", all, this.transport((rt, b: readonly SpanRecord[]) => rt.traces(b)), limits.traces);
    if (has("metrics")) {
      this.metricSink = new Sink("otlp-metrics", "otlp", all, this.transport((rt, b: readonly MetricSnapshot[]) => rt.metrics(b)), limits.metrics);
      this.timer = setInterval(() => this.snapshot(), options.intervalMs ?? metricIntervalMs());
      this.timer.unref();
    }
    void this.load().catch(() => undefined); // start loading the SDK now; a failure shows on the first send
  }

  /** Loads the SDK once; the import and the exporters' setup are not charged to a send's timeout. */
  private load(): Promise<OtlpRuntime> {
    this.runtime ??= import("./sdk.js").then((m) => m.createRuntime(this.settings, this.source, DEFAULT_LIMITS.sendTimeoutMs));
    return this.runtime;
  }

  private transport<T>(send: (rt: OtlpRuntime, batch: readonly T[]) => Promise<void>): Transport<T> {
    return {
      send: async (batch, timeoutMs) => withTimeout(send(await this.load(), batch), timeoutMs, `OTLP export to ${this.settings.endpoint}`),
      close: () => undefined,
    };
  }

  get exportsLogs(): boolean {
    return this.logSink !== undefined;
  }

  log(record: TelemetryRecord): void {
    this.logSink?.publish(record);
  }

  get exportsTraces(): boolean {
    return this.traceSink !== undefined;
  }

  trace(span: SpanRecord): void {
    this.traceSink?.publish(span);
  }

  /** Queues the current metrics for export (the interval timer calls this). */
  snapshot(): void {
    this.metricSink?.publish({ at: Date.now(), families: this.families() });
  }

  stats(): SinkStats[] {
    return [this.logSink, this.traceSink, this.metricSink].flatMap((s) => (s ? [s.stats()] : []));
  }

  async flush(): Promise<void> {
    await Promise.all([this.logSink?.flush(), this.traceSink?.flush(), this.metricSink?.flush()]);
  }

  close(): void {
    clearInterval(this.timer);
    for (const s of [this.logSink, this.traceSink, this.metricSink]) s?.close();
    void this.runtime?.then((rt) => rt.shutdown()).catch(() => undefined);
  }
}
