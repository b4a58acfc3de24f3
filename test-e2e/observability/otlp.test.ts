// OTLP export end to end: `routerd serve` in a namespace, with a HealthCheck so routerd-healthcheck runs too,
// exports logs, metrics and reconcile traces over OTLP/HTTP (protobuf, the OpenTelemetry JS SDK's exporters)
// to a receiver in the same namespace (otlp-receiver.mjs) that decodes every request from the OTLP field
// numbers. The OpenTelemetry Collector itself is not in Debian and was not run. Sampling 0 stops traces; a
// collector killed mid-run costs counted drops while serve and a Loki sink carry on.
import { execFileSync, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { ROUTERD } from "../lib/netns.js";
import { Router, ensureBuilt, until } from "../dhcpv4/router.js";
import { Lab } from "../dhcpv4-client/netns.js";
import { attributes } from "./otlp-decode.mjs";
import { getJson, startReceiver, type OtlpSpan } from "./receiver.js";

type Attrs = Record<string, unknown>;
interface KeyValues {
  attributes?: unknown[];
}
interface Request<T> {
  headers: Record<string, string | null>;
  body: T;
}
interface LogRecord extends KeyValues {
  timeUnixNano: string;
  severityNumber: number;
  severityText: string;
  body?: { stringValue?: string };
  eventName?: string;
}
type Span = OtlpSpan;
interface DataPoint extends KeyValues {
  asDouble?: number;
  asInt?: number;
}
interface Metric {
  name: string;
  sum?: { dataPoints: DataPoint[]; isMonotonic?: boolean };
  gauge?: { dataPoints: DataPoint[] };
}
interface Received {
  logs: Request<{ resourceLogs: { resource: KeyValues; scopeLogs: { logRecords: LogRecord[] }[] }[] }>[];
  traces: Request<{ resourceSpans: { resource: KeyValues; scopeSpans: { spans: Span[] }[] }[] }>[];
  metrics: Request<{ resourceMetrics: { resource: KeyValues; scopeMetrics: { metrics: Metric[] }[] }[] }>[];
  errors: string[];
}

const attrs = (x: KeyValues | undefined): Attrs => attributes(x?.attributes ?? []) as Attrs;

const lab = new Lab("otlp");
let router: Router;
let otlp: { child: ChildProcess; port: number };
let loki: { child: ChildProcess; port: number };
let samplingRate = 1;
/** Where otlp points (plain http to `otlp` until the TLS test). */
let target: { endpoint?: string; tls?: Record<string, string> } = {};

function received(receiver = otlp, scheme = "http"): Received {
  return getJson<Received>(router.ns, `${scheme}://127.0.0.1:${receiver.port}/received`);
}

/** Every log record with its resource's attributes and the request's headers. */
function logs(r: Received) {
  return r.logs.flatMap((q) => q.body.resourceLogs.flatMap((rl) => rl.scopeLogs.flatMap((sl) => sl.logRecords.map((rec) => ({ resource: attrs(rl.resource), rec, attrs: attrs(rec), headers: q.headers })))));
}

function spans(r: Received) {
  return r.traces.flatMap((q) => q.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => ({ resource: attrs(rs.resource), span })))));
}

function metrics(r: Received) {
  return r.metrics.flatMap((q) => q.body.resourceMetrics.flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics.map((m) => ({ resource: attrs(rm.resource), m })))));
}

async function start(script: string, args: string[] = []): Promise<{ child: ChildProcess; port: number }> {
  const { child, ports } = await startReceiver<{ port?: number; loki?: number }>(lab, router.ns, script, args);
  return { child, port: (ports.port ?? ports.loki)! };
}

function writeConfig(extra: ReturnType<typeof res>[] = []): void {
  router.writeConfig([
    res("HealthCheck", "self", { type: "icmp", target: "127.0.0.1", interval: "500ms", timeout: "300ms" }),
    {
      ...res("ObservabilityPipeline", "telemetry", {
        signals: ["logs", "metrics", "traces"],
        serviceNamespace: "home-lab",
        attributes: { site: "lab", "deployment.environment": "test" },
        logs: { sinks: [{ name: "loki", type: "loki", loki: { url: `http://127.0.0.1:${loki.port}` } }] },
        otlp: { endpoint: target.endpoint ?? `http://127.0.0.1:${otlp.port}`, insecure: true, headers: { Authorization: "Bearer t0ken" }, ...(target.tls ? { tls: target.tls } : {}) },
        sampling: { rate: samplingRate },
      }),
      apiVersion: "system.routerd.net/v1alpha1",
    },
    ...extra,
  ]);
}

beforeAll(async () => {
  ensureBuilt();
  router = new Router(lab);
  otlp = await start("otlp-receiver.mjs");
  loki = await start("receivers.mjs");
  writeConfig();
  // Metrics every second instead of the SDK's default minute (the standard variable; daemons inherit it).
  const env = { ...process.env, OTEL_METRIC_EXPORT_INTERVAL: "1000" };
  router.serve = lab.spawn(router.ns, [process.execPath, ROUTERD, "serve", "--config", router.configPath, "--state-dir", router.stateDir, "--run-dir", router.runDir, "--root", router.root, "--interval", "2s", "--stop-daemons-on-exit"], env);
  router.serve.stderr?.on("data", (b: Buffer) => router.serveLog.push(b.toString()));
}, 120_000);

afterAll(async () => {
  if (process.env.ROUTERD_E2E_DEBUG) process.stderr.write(router?.serveLog.join("") ?? "");
  await router?.cleanup();
});

describe("OTLP export", () => {
  // Generous waits: serve, routerd-healthcheck and the SDK start on a machine that may be busy.
  it("log records of serve and routerd-healthcheck, with the resource attributes and headers", { timeout: 120_000 }, async () => {
    const all = await until(
      "OTLP log records of routerd and routerd-healthcheck",
      () => {
        const l = logs(received());
        return l.some((x) => x.rec.eventName === "config.loaded") && l.some((x) => x.resource["service.name"] === "routerd-healthcheck" && x.attrs["routerd.kind"] === "event") ? l : undefined;
      },
      100_000,
      500,
    );
    const loaded = all.find((x) => x.rec.eventName === "config.loaded")!;
    expect(loaded.headers).toMatchObject({ authorization: "Bearer t0ken", "content-type": "application/x-protobuf" });
    expect(loaded.resource).toMatchObject({ "service.name": "routerd", "service.namespace": "home-lab", site: "lab", "deployment.environment": "test" });
    expect(String(loaded.resource["service.instance.id"])).toMatch(/\/routerd\/core$/);
    expect(loaded.rec).toMatchObject({ severityNumber: 9, severityText: "INFO", body: { stringValue: "2 resources" } });
    expect(loaded.attrs).toMatchObject({ "routerd.kind": "event", "routerd.daemon": "routerd", "routerd.topic": "config.loaded" });
    // Nanoseconds since the epoch, close to now.
    expect(Math.abs(Number(BigInt(loaded.rec.timeUnixNano) / 1_000_000n) - Date.now())).toBeLessThan(120_000);
    const hc = all.find((x) => x.resource["service.name"] === "routerd-healthcheck")!;
    expect(hc.resource).toMatchObject({ "service.namespace": "home-lab", site: "lab" });
    // serve's pino log lines travel as well as its events.
    expect(all.some((x) => x.resource["service.name"] === "routerd" && x.attrs["routerd.kind"] === "log")).toBe(true);
    expect(received().errors).toEqual([]);
  });

  it("metrics: the Prometheus endpoint's families, as OTLP sums and gauges", { timeout: 60_000 }, async () => {
    const names = ["routerd_events_total", "routerd_resources", "routerd_daemons", "process_resident_memory_bytes", "routerd_telemetry_records_total"];
    const all = await until(
      "serve's metric families over OTLP",
      () => {
        const m = metrics(received()).filter((x) => x.resource["service.name"] === "routerd");
        // The first metric export may come before the first log batch was sent: wait until the counter says so.
        const logsSent = m.some((x) => x.m.name === "routerd_telemetry_records_total" && x.m.sum?.dataPoints.some((p) => attrs(p).sink === "otlp-logs" && attrs(p).outcome === "sent" && Number(p.asDouble) > 0));
        return logsSent && names.every((n) => m.some((x) => x.m.name === n)) && metrics(received()).some((x) => x.resource["service.name"] === "routerd-healthcheck") ? m : undefined;
      },
      45_000,
      1000,
    );
    const events = all.filter((x) => x.m.name === "routerd_events_total").at(-1)!.m;
    expect(events.sum?.isMonotonic).toBe(true);
    const loaded = events.sum!.dataPoints.find((p) => attrs(p).topic === "config.loaded")!;
    expect(attrs(loaded)).toEqual({ daemon: "routerd", instance: "core", topic: "config.loaded", severity: "info" });
    expect(loaded.asDouble ?? loaded.asInt).toBeGreaterThanOrEqual(1);
    const rss = all.filter((x) => x.m.name === "process_resident_memory_bytes").at(-1)!.m;
    expect(rss.gauge?.dataPoints[0]?.asDouble).toBeGreaterThan(10 * 1024 * 1024);
    const records = all.filter((x) => x.m.name === "routerd_telemetry_records_total").map((x) => x.m);
    expect(records.some((r) => r.sum?.dataPoints.some((p) => attrs(p).sink === "otlp-logs" && attrs(p).outcome === "sent" && Number(p.asDouble) > 0) ?? false)).toBe(true);
  });

  it("one trace per reconcile: a root span with a child span per stage", { timeout: 60_000 }, async () => {
    const all = await until("a reconcile trace", () => (spans(received()).some((x) => x.span.name === "routerd.reconcile") ? spans(received()) : undefined), 45_000, 500);
    const root = all.find((x) => x.span.name === "routerd.reconcile")!;
    expect(root.resource).toMatchObject({ "service.name": "routerd", "service.namespace": "home-lab" });
    expect(root.span.parentSpanId ?? "").toBe("");
    expect(attrs(root.span)).toMatchObject({ "routerd.reconcile.applied": true });
    const children = all.filter((x) => x.span.parentSpanId === root.span.spanId).map((x) => x.span);
    expect(children.map((s) => s.name)).toEqual(expect.arrayContaining(["ledger and status read", "desired state computed", "host observed", "planned", "status saved"]));
    for (const c of children) {
      expect(c.traceId).toBe(root.span.traceId);
      expect(BigInt(c.startTimeUnixNano) >= BigInt(root.span.startTimeUnixNano)).toBe(true);
      expect(BigInt(c.endTimeUnixNano) <= BigInt(root.span.endTimeUnixNano)).toBe(true);
    }
  });

  it("daemons trace their operations: routerd-healthcheck's transitions as spans, with its resource", { timeout: 60_000 }, async () => {
    const transition = await until("a healthcheck.transition span", () => spans(received()).find((x) => x.span.name === "healthcheck.transition"), 45_000, 500);
    expect(transition.resource).toMatchObject({ "service.name": "routerd-healthcheck", "service.namespace": "home-lab", site: "lab", "deployment.environment": "test" });
    expect(String(transition.resource["service.instance.id"])).toMatch(/\/routerd-healthcheck\/default$/);
    expect(attrs(transition.span)).toMatchObject({ "healthcheck.probe": "self", "healthcheck.type": "icmp", "healthcheck.target": "127.0.0.1", "healthcheck.from": "Unknown" });
    expect(transition.span.parentSpanId ?? "").toBe("");
    expect(BigInt(transition.span.endTimeUnixNano) >= BigInt(transition.span.startTimeUnixNano)).toBe(true);
  });

  it("sampling rate 0 stops the traces", { timeout: 90_000 }, async () => {
    // With rate 1 every periodic reconcile (--interval 2s) makes a trace.
    const roots = () => spans(received()).filter((x) => x.span.name === "routerd.reconcile");
    const rootsBefore = roots().length;
    await until("another reconcile trace", () => roots().length > rootsBefore, 30_000, 500);
    const loadsBefore = logs(received()).filter((x) => x.rec.eventName === "config.loaded").length;
    samplingRate = 0;
    writeConfig();
    const reloaded = await until(
      "the config reload in the logs",
      () => logs(received()).filter((x) => x.rec.eventName === "config.loaded").at(loadsBefore)?.rec,
      30_000,
      500,
    );
    const reloadedAt = BigInt(reloaded.timeUnixNano);
    // Several reconciles (every 2 s) later, no trace started after the reload.
    await new Promise((r) => setTimeout(r, 8000));
    expect(roots().filter((x) => BigInt(x.span.startTimeUnixNano) > reloadedAt)).toEqual([]);
  });

  it("https: refused without the collector's CA (failing, drops counted), accepted with otlp.tls.caFile", { timeout: 90_000 }, async () => {
    // A CA and a server certificate for 127.0.0.1, made for this test.
    const ext = lab.path("san.ext");
    writeFileSync(ext, "subjectAltName=IP:127.0.0.1\n");
    const ssl = (...a: string[]) => execFileSync("openssl", a, { stdio: "pipe", timeout: 30_000 });
    const [caKey, ca, key, csr, cert] = ["ca.key", "ca.pem", "srv.key", "srv.csr", "srv.pem"].map((f) => lab.path(f)) as [string, string, string, string, string];
    ssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", caKey, "-out", ca, "-days", "1", "-subj", "/CN=routerd-test-ca");
    ssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1");
    ssl("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", caKey, "-CAcreateserial", "-out", cert, "-days", "1", "-extfile", ext);
    const secure = await start("otlp-receiver.mjs", ["0", cert, key]);
    try {
      const otlpSinks = async () => ((await router.published("ObservabilityPipeline/telemetry"))?.sinks as Record<string, unknown>[] | undefined)?.filter((x) => x.type === "otlp");
      // The system trust store does not know this CA: the exporter refuses the collector.
      target = { endpoint: `https://127.0.0.1:${secure.port}` };
      writeConfig([res("HealthCheck", "tls1", { type: "icmp", target: "127.0.0.1", interval: "1s", timeout: "500ms" })]);
      const refused = await until(
        "the OTLP log sink failing on the unknown CA",
        async () => (await otlpSinks())?.find((x) => x.name === "otlp-logs" && x.state === "failing" && (x.dropped as number) > 0),
        45_000,
        1000,
      );
      expect(String(refused.lastError)).toMatch(/certificate|self.signed|issuer/i);
      expect(received(secure, "https").logs).toEqual([]);
      // With the CA, the same collector gets the records (the reload's config.loaded among them).
      target = { endpoint: `https://127.0.0.1:${secure.port}`, tls: { caFile: ca } };
      writeConfig([res("HealthCheck", "tls2", { type: "icmp", target: "127.0.0.1", interval: "1s", timeout: "500ms" })]);
      const got = await until("log records over https", () => logs(received(secure, "https")).find((x) => x.rec.eventName === "config.loaded"), 45_000, 1000);
      expect(got.headers).toMatchObject({ authorization: "Bearer t0ken" });
      expect(got.rec.body?.stringValue).toBe("3 resources");
    } finally {
      secure.child.kill("SIGKILL");
      target = {};
    }
  });

  it("a collector killed mid-run: OTLP drops counted in status, serve and the Loki sink carry on", { timeout: 90_000 }, async () => {
    otlp.child.kill("SIGKILL");
    writeConfig(["self2", "self3"].map((n) => res("HealthCheck", n, { type: "icmp", target: "127.0.0.1", interval: "1s", timeout: "500ms" })));
    const sinks = await until(
      "OTLP drop counters in serve's status",
      async () => {
        const s = (await router.published("ObservabilityPipeline/telemetry"))?.sinks as Record<string, unknown>[] | undefined;
        const logSink = s?.find((x) => x.name === "otlp-logs");
        return logSink && (logSink.dropped as number) > 0 && logSink.state === "failing" ? s : undefined;
      },
      60_000,
      1000,
    );
    expect(sinks.find((x) => x.name === "otlp-logs")).toMatchObject({ type: "otlp", state: "failing" });
    expect(String(sinks.find((x) => x.name === "otlp-logs")!.lastError)).toMatch(/ECONNREFUSED|connect/i);
    expect(sinks.map((x) => x.name)).toEqual(expect.arrayContaining(["loki", "otlp-logs", "otlp-traces", "otlp-metrics"]));
    // The Loki sink got the reload after the kill ("4 resources"), so nothing waited on the dead collector.
    const lokiLines = () => {
      const r = getJson<{ pushes: { body: { streams: { values: [string, string][] }[] } }[] }>(router.ns, `http://127.0.0.1:${loki.port}/received`);
      return r.pushes.flatMap((p) => p.body.streams.flatMap((s) => s.values.map(([, line]) => JSON.parse(line) as { message: string })));
    };
    await until("the reload at the Loki receiver", () => lokiLines().some((l) => l.message === "4 resources"), 20_000, 500);
    expect(sinks.find((x) => x.name === "loki")).toMatchObject({ state: "ok", dropped: 0 });
  });
});
