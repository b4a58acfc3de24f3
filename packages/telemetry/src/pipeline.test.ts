import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { parseListen } from "./metrics-server.js";
import { environmentFile, otelEnvironment } from "./otel-env.js";
import { Pipeline } from "./pipeline.js";
import { EMPTY_SETTINGS, type PipelineSettings } from "./settings.js";

const stdoutSink = { pipeline: "p", name: "out", type: "stdout" as const, minLevel: "info" as const, labels: {} };
const limits = { queueSize: 10, batchSize: 10, flushIntervalMs: 1, sendTimeoutMs: 100, backoffMs: 1, maxBackoffMs: 2 };

function collect(stream: PassThrough): () => Record<string, unknown>[] {
  const lines: string[] = [];
  stream.on("data", (d: Buffer) => lines.push(...d.toString().split("\n").filter(Boolean)));
  return () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("Pipeline", () => {
  it("turns events and pino lines into records with the process as source and the pipeline's attributes", async () => {
    const out = new PassThrough();
    const got = collect(out);
    const p = new Pipeline({ daemon: "healthcheck", instance: "default" }, { stdout: out, limits });
    p.configure({ ...EMPTY_SETTINGS, attributes: { site: "attic" }, sinks: [stdoutSink] });
    p.event({ seq: 7, time: "2026-12-01T00:00:00.000Z", topic: "probe.transition", severity: "warning", resource: "HealthCheck/a", message: "down", attributes: { from: "Healthy" } });
    p.logStream().write(`${JSON.stringify({ level: 50, time: 0, msg: "send failed", pid: 1, err: { message: "x" } })}\n{"level":20,"msg":"below minLevel"}\n`);
    await new Promise((r) => setImmediate(r));
    await p.flush();
    expect(got()).toEqual([
      { time: "2026-12-01T00:00:00.000Z", level: "warning", kind: "event", daemon: "healthcheck", instance: "default", message: "down", topic: "probe.transition", resource: "HealthCheck/a", seq: 7, attributes: { site: "attic", from: "Healthy" } },
      { time: "1970-01-01T00:00:00.000Z", level: "error", kind: "log", daemon: "healthcheck", instance: "default", message: "send failed", attributes: { site: "attic", err: '{"message":"x"}' } },
    ]);
    expect(p.stats()).toMatchObject([{ pipeline: "p", name: "out", accepted: 2, sent: 2, dropped: 0 }]);
    p.close();
  });

  it("keeps an unchanged sink (and its counters) across configure, replaces a changed one", async () => {
    const p = new Pipeline({ daemon: "routerd", instance: "core" }, { stdout: new PassThrough(), limits });
    const settings: PipelineSettings = { ...EMPTY_SETTINGS, sinks: [stdoutSink] };
    p.configure(settings);
    p.event({ seq: 1, time: new Date().toISOString(), topic: "t", severity: "info", resource: "", message: "m", attributes: {} });
    p.configure({ ...settings });
    expect(p.stats()[0]!.accepted).toBe(1);
    p.configure({ ...settings, sinks: [{ ...stdoutSink, minLevel: "error" }] });
    expect(p.stats()[0]!.accepted).toBe(0);
    p.configure(EMPTY_SETTINGS);
    expect(p.active).toBe(false);
  });

  it("a sink that cannot be built stays visible with the reason, and loses its records countably", async () => {
    const p = new Pipeline({ daemon: "routerd", instance: "core" }, { limits });
    p.configure({ ...EMPTY_SETTINGS, sinks: [{ ...stdoutSink, name: "k", type: "kafka" }] });
    p.event({ seq: 1, time: new Date().toISOString(), topic: "t", severity: "info", resource: "", message: "m", attributes: {} });
    await p.flush();
    expect(p.stats()[0]).toMatchObject({ name: "k", dropped: 1, state: "failing", lastError: "sink k: kafka is missing" });
    p.close();
  });
});

describe("OTEL environment", () => {
  it("is empty without otlp and names endpoint, resource, exporters and sampler with it", () => {
    expect(otelEnvironment(EMPTY_SETTINGS)).toEqual({});
    const env = otelEnvironment({ ...EMPTY_SETTINGS, serviceNamespace: "home", attributes: { site: "a b" }, otlp: { endpoint: "https://otel:4318", headers: { Authorization: "Bearer t" }, signals: ["logs", "traces"], samplingRate: 0.25 } }, "routerd-healthcheck");
    expect(env).toEqual({
      OTEL_SERVICE_NAME: "routerd-healthcheck",
      OTEL_RESOURCE_ATTRIBUTES: "service.namespace=home,site=a%20b",
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel:4318",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Bearer%20t",
      OTEL_LOGS_EXPORTER: "otlp",
      OTEL_METRICS_EXPORTER: "none",
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
    });
    expect(environmentFile({ A: 'x"y' })).toBe('A="x\\"y"\n');
  });
});

describe("metrics listen address", () => {
  it("takes a Unix socket or a loopback address, and refuses others unless allowed", () => {
    expect(parseListen("unix:/run/routerd/metrics.sock")).toEqual({ unix: "/run/routerd/metrics.sock" });
    expect(parseListen("127.0.0.1:9464")).toEqual({ host: "127.0.0.1", port: 9464 });
    expect(parseListen("[::1]:9464")).toEqual({ host: "::1", port: 9464 });
    expect(() => parseListen("0.0.0.0:9464")).toThrow(/loopback or a Unix socket only/);
    expect(parseListen("192.0.2.1:9464", true)).toEqual({ host: "192.0.2.1", port: 9464 });
    expect(() => parseListen("unix:relative")).toThrow(/absolute/);
  });
});
