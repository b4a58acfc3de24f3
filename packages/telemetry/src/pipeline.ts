// The pipeline of one process (routerd serve or a daemon): its records fan out to every configured sink.
// configure() swaps sinks whose settings changed and keeps the others (and their counters).
import { Writable } from "node:stream";
import { levelFromPino, type Level, type TelemetryRecord } from "./record.js";
import type { MetricFamily } from "./encode/prometheus.js";
import { EventCounter, pipelineFamilies } from "./metrics.js";
import { OtlpExport, otlpSource } from "./otlp/export.js";
import type { SpanRecord } from "./otlp/span.js";
import { createTransport, type TransportContext } from "./registry.js";
import { EMPTY_SETTINGS, type PipelineSettings, type SinkSettings } from "./settings.js";
import { DEFAULT_LIMITS, Sink, type SinkLimits, type SinkStats } from "./sink.js";
import type { Transport } from "./transport/transport.js";

export interface Source {
  daemon: string;
  instance: string;
}

/** The fields of a daemon event (@routerd/daemon-kit's DaemonEvent) the pipeline reads. */
export interface EventLike {
  seq: number;
  time: string;
  topic: string;
  severity: Level;
  resource: string;
  message: string;
  attributes: Record<string, string>;
}

export interface PipelineOptions {
  limits?: SinkLimits;
  stdout?: NodeJS.WritableStream;
  /** Metric export interval for OTLP (default OTEL_METRIC_EXPORT_INTERVAL or 60 s). */
  metricIntervalMs?: number;
}

/** A transport for a sink that cannot be built: every send fails with why, so status shows it. */
function broken(reason: string): Transport {
  return { send: () => Promise.reject(new Error(reason)), close: () => undefined };
}

const PINO_KEYS = new Set(["level", "time", "msg", "pid", "hostname", "name", "v"]);

export class Pipeline {
  private sinks = new Map<string, { key: string; sink: Sink }>();
  private settings: PipelineSettings = EMPTY_SETTINGS;
  private otlp?: { key: string; export: OtlpExport };
  /** Every event seen, exported or not (routerd_events_total). */
  readonly events = new EventCounter();
  /** What OTLP metrics export: this pipeline's counters; routerd serve adds its own gauges. */
  metrics: () => MetricFamily[] = () => pipelineFamilies(this);

  constructor(
    readonly source: Source,
    private readonly options: PipelineOptions = {},
  ) {}

  get current(): PipelineSettings {
    return this.settings;
  }

  configure(settings: PipelineSettings): void {
    this.settings = settings;
    const ctx: TransportContext = { attributes: settings.attributes, ...(this.options.stdout ? { stdout: this.options.stdout } : {}) };
    const next = new Map<string, { key: string; sink: Sink }>();
    for (const s of settings.sinks) {
      const id = `${s.pipeline}/${s.name}`;
      const key = JSON.stringify([s, settings.attributes]);
      const existing = this.sinks.get(id);
      if (existing?.key === key) {
        next.set(id, existing);
        continue;
      }
      existing?.sink.close();
      next.set(id, { key, sink: new Sink(s.name, s.type, s.minLevel, this.transport(s, ctx), this.options.limits ?? DEFAULT_LIMITS) });
    }
    for (const [id, old] of this.sinks) if (!next.has(id)) old.sink.close();
    this.sinks = next;
    this.configureOtlp(settings);
  }

  /** Starts, keeps or replaces the OTLP export (the SDK loads only once `otlp` is configured). */
  private configureOtlp(settings: PipelineSettings): void {
    const o = settings.otlp;
    const key = o ? JSON.stringify([o, settings.serviceNamespace, settings.attributes]) : "";
    if (this.otlp?.key === key) return;
    this.otlp?.export.close();
    this.otlp = undefined;
    if (!o) return;
    const source = otlpSource(this.source.daemon, this.source.instance, settings.serviceNamespace, settings.attributes);
    const intervalMs = this.options.metricIntervalMs;
    this.otlp = { key, export: new OtlpExport(o, source, () => this.metrics(), intervalMs ? { intervalMs } : {}) };
  }

  private transport(s: SinkSettings, ctx: TransportContext): Transport {
    try {
      return createTransport(s, ctx);
    } catch (err) {
      return broken((err as Error).message);
    }
  }

  get active(): boolean {
    return this.sinks.size > 0 || Boolean(this.otlp?.export.exportsLogs);
  }

  publish(record: TelemetryRecord): void {
    for (const { sink } of this.sinks.values()) sink.publish(record);
    this.otlp?.export.log(record);
  }

  /** Whether spans are exported (OTLP with traces configured): callers may skip building them otherwise. */
  get tracing(): boolean {
    return Boolean(this.otlp?.export.exportsTraces);
  }

  /** A finished operation (a reconcile, a daemon's lease transaction, ...), exported when OTLP traces are configured. */
  trace(span: SpanRecord): void {
    this.otlp?.export.trace(span);
  }

  /** A daemon event as a record. */
  event(e: EventLike): void {
    this.events.count(e);
    if (!this.active) return;
    this.publish({
      time: e.time,
      level: e.severity,
      kind: "event",
      daemon: this.source.daemon,
      instance: this.source.instance,
      message: e.message,
      topic: e.topic,
      ...(e.resource ? { resource: e.resource } : {}),
      seq: e.seq,
      attributes: e.attributes,
    });
  }

  /** A pino log line (JSON) as a record; its own fields become attributes. */
  logLine(line: string): void {
    if (!this.active || !line.trim()) return;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const attributes: Record<string, string> = {};
    for (const [k, v] of Object.entries(o)) {
      if (PINO_KEYS.has(k) || v === undefined) continue;
      attributes[k] = typeof v === "string" ? v : JSON.stringify(v);
    }
    this.publish({
      time: typeof o.time === "number" ? new Date(o.time).toISOString() : new Date().toISOString(),
      level: levelFromPino(typeof o.level === "number" ? o.level : 30),
      kind: "log",
      daemon: this.source.daemon,
      instance: this.source.instance,
      message: typeof o.msg === "string" ? o.msg : "",
      attributes,
    });
  }

  /**
   * A stream for pino.multistream: each line written becomes a log record (never blocks the logger). Lines
   * with a message in `skip` are left out ("daemon event": the event itself is exported).
   */
  logStream(skip: ReadonlySet<string> = new Set(["daemon event"])): Writable {
    let pending = "";
    return new Writable({
      write: (chunk: Buffer | string, _enc, done) => {
        pending += chunk.toString();
        let nl: number;
        while ((nl = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, nl);
          if (![...skip].some((m) => line.includes(`"msg":${JSON.stringify(m)}`))) this.logLine(line);
          pending = pending.slice(nl + 1);
        }
        if (pending.length > 65536) pending = "";
        done();
      },
    });
  }

  stats(): (SinkStats & { pipeline: string })[] {
    const sinks = [...this.sinks.entries()].map(([id, { sink }]) => ({ pipeline: id.slice(0, id.indexOf("/")), ...sink.stats() }));
    const pipeline = this.settings.otlp?.pipeline ?? "";
    return [...sinks, ...(this.otlp?.export.stats() ?? []).map((s) => ({ pipeline, ...s }))];
  }

  /** Sends what is queued (and, with OTLP metrics, a last snapshot): for shutdown and tests. */
  async flush(): Promise<void> {
    this.otlp?.export.snapshot();
    await Promise.all([...[...this.sinks.values()].map(({ sink }) => sink.flush()), this.otlp?.export.flush()]);
  }

  close(): void {
    for (const { sink } of this.sinks.values()) sink.close();
    this.sinks.clear();
    this.otlp?.export.close();
    this.otlp = undefined;
  }
}
