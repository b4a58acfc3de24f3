// routerd serve's side of the ObservabilityPipeline: configures its own pipeline from the config, hands the
// settings to the daemons (a file they follow, plus OTEL_* for systemd units and spawned daemons), serves
// the Prometheus endpoint when a pipeline asks for metrics, turns each reconcile's stage marks into a trace
// (exported when a pipeline exports OTLP traces), and reports the sinks' counters as status.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { telemetrySettings, type ConfigView } from "@routerd/api";
import { onTraceStage } from "@routerd/resource";
import {
  EMPTY_SETTINGS,
  SETTINGS_ENV,
  environmentFile,
  otelEnvironment,
  parseListen,
  pipelineFamilies,
  ReconcileTimeline,
  serveMetrics,
  settingsPath,
  writeSettings,
  type MetricFamily,
  type MetricsServer,
  type Pipeline,
} from "@routerd/telemetry";
import type { Logger } from "pino";

/** Where the metrics go when `--metrics-listen` is not given. */
export function defaultMetricsListen(runDir: string): string {
  return `unix:${join(runDir, "routerd", "metrics.sock")}`;
}

export class ServeTelemetry {
  private server?: MetricsServer;
  private starting?: Promise<void>;
  private settings = EMPTY_SETTINGS;
  private readonly timeline = new ReconcileTimeline();
  private readonly unsubscribe: () => void;

  constructor(
    readonly pipeline: Pipeline,
    private readonly runDir: string,
    private readonly metricsListen: string,
    private readonly logger: Logger,
    /** Serve's own gauges (resources by phase, daemons), added to the endpoint's answer. */
    private readonly collect: () => MetricFamily[] = () => [],
  ) {
    pipeline.metrics = () => this.families();
    this.unsubscribe = onTraceStage((stage, at) => {
      const run = this.timeline.mark(stage, at);
      if (run) pipeline.trace(run);
    });
  }

  /** The environment a spawned daemon gets: the settings file, and OTEL_* when a pipeline exports OTLP. */
  env(daemon: string): NodeJS.ProcessEnv {
    return { ...process.env, [SETTINGS_ENV]: settingsPath(this.runDir), ...otelEnvironment(this.settings, `routerd-${daemon}`) };
  }

  async apply(view: ConfigView): Promise<void> {
    const settings = telemetrySettings(view);
    this.pipeline.configure(settings);
    writeSettings(settingsPath(this.runDir), settings);
    this.settings = settings;
    // systemd units read it with EnvironmentFile=-/run/routerd/routerd/telemetry.env (OTEL_SERVICE_NAME is per unit).
    writeFileSync(join(this.runDir, "routerd", "telemetry.env"), environmentFile({ [SETTINGS_ENV]: settingsPath(this.runDir), ...otelEnvironment(settings) }), { mode: 0o644 });
    await this.starting;
    if (settings.metrics && !this.server) this.starting = this.startServer();
    else if (!settings.metrics && this.server) {
      await this.server.close();
      this.server = undefined;
    }
    await this.starting;
  }

  private async startServer(): Promise<void> {
    try {
      this.server = await serveMetrics(parseListen(this.metricsListen), () => this.families());
      this.logger.info({ listen: this.server.address }, "metrics endpoint listening");
    } catch (err) {
      this.logger.error({ err, listen: this.metricsListen }, "metrics endpoint failed to start");
    } finally {
      this.starting = undefined;
    }
  }

  get metricsAddress(): string | undefined {
    return this.server?.address;
  }

  families(): MetricFamily[] {
    return [...pipelineFamilies(this.pipeline), ...this.collect()];
  }

  /** Each pipeline's sinks with their counters (its status field `sinks`). */
  facts(): Map<string, Record<string, unknown>> {
    const out = new Map<string, Record<string, unknown>>();
    for (const s of this.pipeline.stats()) {
      const key = `ObservabilityPipeline/${s.pipeline}`;
      const { pipeline: _p, ...sink } = s;
      const entry = out.get(key) ?? { sinks: [] as unknown[] };
      (entry.sinks as unknown[]).push(sink);
      out.set(key, entry);
    }
    return out;
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.server?.close();
    this.server = undefined;
    await this.pipeline.flush();
    this.pipeline.close();
  }
}
