// @routerd/telemetry: routerd's observability runtime. A Pipeline per process (serve or a daemon) sends its
// events and logs to the configured sinks through bounded queues; a Prometheus endpoint serves counters.
export { Pipeline, type EventLike, type PipelineOptions, type Source } from "./pipeline.js";
export { DEFAULT_LIMITS, Sink, type SinkLimits, type SinkStats } from "./sink.js";
export { EMPTY_SETTINGS, SETTINGS_ENV, readSettings, settingsPath, watchSettings, writeSettings, type PipelineSettings, type SinkSettings } from "./settings.js";
export { LEVELS, levelAtLeast, type Level, type TelemetryRecord } from "./record.js";
export { EventCounter, pipelineFamilies } from "./metrics.js";
export { parseListen, serveMetrics, type ListenAddress, type MetricsServer } from "./metrics-server.js";
export { encodePrometheus, PROMETHEUS_CONTENT_TYPE, type MetricFamily, type MetricSample } from "./encode/prometheus.js";
export { encodeRfc3164, encodeRfc5424, octetFrame } from "./encode/syslog.js";
export { encodeLokiPush, LOKI_PUSH_PATH } from "./encode/loki.js";
export { environmentFile, otelEnvironment } from "./otel-env.js";
export { SINK_TRANSPORTS } from "./registry.js";
export { OTLP_LIMITS, metricIntervalMs, type MetricSnapshot } from "./otlp/export.js";
export { ReconcileTimeline, RUN_FINISHED, RUN_STARTED, type ReconcileTrace } from "./otlp/reconcile-trace.js";
export { Operation, type PhaseSpan, type SpanAttributes, type SpanRecord } from "./otlp/span.js";
export type { OtlpSettings, OtlpSignal } from "./settings.js";
