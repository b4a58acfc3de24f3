// ObservabilityPipeline end to end: `routerd serve` in a namespace, with a HealthCheck so routerd-healthcheck
// runs too, sends events and logs to a Loki push-API receiver (with labels and tenant), to syslog over UDP
// and TCP, and serves Prometheus metrics that a real Prometheus (Debian's package) scrapes. A sink whose
// receiver is gone (closed port, or killed mid-test) drops and counts, and nothing else waits for it.
// The Loki receiver is a stand-in speaking the push API (receivers.mjs): Grafana Loki is not in Debian.
import { execFileSync, spawnSync, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { Router, ensureBuilt, until } from "../dhcpv4/router.js";
import { Lab } from "../dhcpv4-client/netns.js";
import { ROUTERD } from "../lib/netns.js";
import { startReceiver } from "./receiver.js";

const lab = new Lab("obs");
let router: Router;
let ports: { loki: number; udp: number; tcp: number };
let doomed: { child: ChildProcess; loki: number };
const metricsPort = 20000 + Math.floor(Math.random() * 30000);
const promPort = metricsPort + 1;
const hasPrometheus = spawnSync("prometheus", ["--version"]).status === 0;

interface Received {
  pushes: { tenant: string | null; body: { streams: { stream: Record<string, string>; values: [string, string][] }[] } }[];
  syslog: { udp: string[]; tcp: string[] };
}

function inNs(argv: string[]): string {
  return execFileSync("ip", ["netns", "exec", router.ns, ...argv], { encoding: "utf8", timeout: 10_000 });
}

function received(port = ports.loki): Received {
  return JSON.parse(inNs(["curl", "-sf", `http://127.0.0.1:${port}/received`])) as Received;
}

/** Every Loki line with its stream's labels. */
function lokiLines(r: Received): { labels: Record<string, string>; tenant: string | null; record: Record<string, unknown> }[] {
  return r.pushes.flatMap((p) => p.body.streams.flatMap((s) => s.values.map(([, line]) => ({ labels: s.stream, tenant: p.tenant, record: JSON.parse(line) as Record<string, unknown> }))));
}

function startReceivers(): Promise<{ child: ChildProcess; ports: typeof ports }> {
  return startReceiver<typeof ports>(lab, router.ns, "receivers.mjs");
}

const pipeline = () => ({
  ...res("ObservabilityPipeline", "telemetry", {
    signals: ["logs", "metrics"],
    attributes: { site: "lab" },
    logs: {
      sinks: [
        { name: "loki", type: "loki", labels: { router: "edge-test" }, loki: { url: `http://127.0.0.1:${ports.loki}`, tenant: "home" } },
        { name: "syslog-udp", type: "syslog", syslog: { network: "udp", address: `127.0.0.1:${ports.udp}`, facility: "local3", tag: "routerd-test" } },
        { name: "syslog-tcp", type: "syslog", minLevel: "warning", syslog: { network: "tcp", address: `127.0.0.1:${ports.tcp}`, facility: "daemon", tag: "routerd-test" } },
        { name: "dead", type: "loki", loki: { url: "http://127.0.0.1:1" } },
        { name: "doomed", type: "loki", loki: { url: `http://127.0.0.1:${doomed.loki}` } },
      ],
    },
  }),
  apiVersion: "system.routerd.net/v1alpha1",
});

function writeConfig(extra: ReturnType<typeof res>[] = []): void {
  router.writeConfig([res("HealthCheck", "self", { type: "icmp", target: "127.0.0.1", interval: "500ms", timeout: "300ms" }), pipeline(), ...extra]);
}

beforeAll(async () => {
  ensureBuilt();
  router = new Router(lab);
  ports = (await startReceivers()).ports;
  const second = await startReceivers();
  doomed = { child: second.child, loki: second.ports.loki };
  if (hasPrometheus) {
    const conf = lab.path("prometheus.yml");
    writeFileSync(conf, `global: { scrape_interval: 1s, scrape_timeout: 900ms }\nscrape_configs:\n  - job_name: routerd\n    static_configs: [{ targets: ["127.0.0.1:${metricsPort}"] }]\n`);
    lab.spawn(router.ns, ["prometheus", `--config.file=${conf}`, `--storage.tsdb.path=${lab.path("prom")}`, `--web.listen-address=127.0.0.1:${promPort}`]);
  }
  writeConfig();
  router.serve = lab.spawn(router.ns, [process.execPath, ROUTERD, "serve", "--config", router.configPath, "--state-dir", router.stateDir, "--run-dir", router.runDir, "--root", router.root, "--interval", "2s", "--metrics-listen", `127.0.0.1:${metricsPort}`, "--stop-daemons-on-exit"]);
  router.serve.stderr?.on("data", (b: Buffer) => router.serveLog.push(b.toString()));
}, 120_000);

afterAll(async () => {
  if (process.env.ROUTERD_E2E_DEBUG) process.stderr.write(router?.serveLog.join("") ?? "");
  await router?.cleanup();
});

describe("ObservabilityPipeline", () => {
  it("Loki receives serve's and routerd-healthcheck's events and logs, labelled, with the tenant", { timeout: 60_000 }, async () => {
    const lines = await until(
      "events of serve and of routerd-healthcheck at the Loki receiver",
      () => {
        const l = lokiLines(received());
        return l.some((x) => x.labels.daemon === "routerd" && x.record.topic === "config.loaded") && l.some((x) => x.labels.daemon === "healthcheck" && x.record.kind === "event") ? l : undefined;
      },
      40_000,
      500,
    );
    const loaded = lines.find((x) => x.record.topic === "config.loaded")!;
    expect(loaded.tenant).toBe("home");
    expect(loaded.labels).toEqual({ job: "routerd", daemon: "routerd", instance: "core", level: "info", kind: "event", router: "edge-test" });
    expect(loaded.record).toMatchObject({ message: "2 resources", attributes: { site: "lab" } });
    expect(lines.find((x) => x.labels.daemon === "healthcheck")!.labels).toMatchObject({ instance: "default", router: "edge-test" });
    // serve's pino log lines travel too ("daemon listening" is logged at start).
    expect(lines.some((x) => x.labels.kind === "log" && x.labels.daemon === "routerd")).toBe(true);
  });

  it("syslog gets RFC 5424 over UDP and octet-counted TCP, filtered by minLevel", { timeout: 40_000 }, async () => {
    const r = await until("syslog over UDP", () => (received().syslog.udp.some((l) => l.includes("config.loaded")) ? received() : undefined), 30_000, 500);
    const line = r.syslog.udp.find((l) => l.includes(" config.loaded "))!;
    // local3.info: 19 * 8 + 6.
    expect(line).toMatch(/^<158>1 \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \S+ routerd-test \d+ config\.loaded \[routerd@32473 daemon="routerd" instance="core" kind="event" seq="\d+" site="lab"\] 2 resources$/);
    // The TCP sink takes warning and above only.
    for (const l of r.syslog.tcp) expect(l).toMatch(/^<(2[4-8])>1 /);
  });

  it("a dead sink and a sink killed mid-run drop and count, and the others keep flowing", { timeout: 60_000 }, async () => {
    doomed.child.kill("SIGKILL");
    const before = lokiLines(received()).length;
    // New events after the kill: a config change makes serve reload and reconcile.
    writeConfig([res("HealthCheck", "self2", { type: "icmp", target: "127.0.0.1", interval: "1s", timeout: "500ms" })]);
    await until("events after the kill at the live receiver", () => lokiLines(received()).filter((x) => x.record.message === "3 resources").length > 0 && lokiLines(received()).length > before, 20_000, 300);
    const sinks = await until(
      "drop counters in serve's status",
      async () => {
        const s = (await router.published("ObservabilityPipeline/telemetry"))?.sinks as Record<string, unknown>[] | undefined;
        const doomedSink = s?.find((x) => x.name === "doomed");
        return doomedSink && (doomedSink.dropped as number) > 0 && doomedSink.state === "failing" ? s : undefined;
      },
      30_000,
      500,
    );
    const dead = sinks.find((x) => x.name === "dead")!;
    expect(dead).toMatchObject({ type: "loki", sent: 0, state: "failing" });
    expect(dead.dropped as number).toBeGreaterThan(0);
    expect(String(dead.lastError)).toMatch(/fetch failed|ECONNREFUSED/);
    expect(sinks.find((x) => x.name === "loki")).toMatchObject({ state: "ok", dropped: 0 });
  });

  it.skipIf(!hasPrometheus)("Prometheus scrapes routerd's endpoint: events and the sinks' counters", { timeout: 60_000 }, async () => {
    const query = (q: string) => JSON.parse(inNs(["curl", "-sf", "--get", `http://127.0.0.1:${promPort}/api/v1/query`, "--data-urlencode", `query=${q}`])) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
    await until("a successful scrape", () => query('up{job="routerd"}').data.result[0]?.value[1] === "1", 40_000, 1000);
    const loaded = await until("routerd_events_total for config.loaded", () => query('routerd_events_total{topic="config.loaded"}').data.result[0], 20_000, 1000);
    expect(Number(loaded.value[1])).toBeGreaterThanOrEqual(1);
    const dropped = await until("dropped records of the dead sink", () => query('routerd_telemetry_records_total{sink="dead",outcome="dropped"} > 0').data.result[0], 20_000, 1000);
    expect(dropped.metric).toMatchObject({ pipeline: "telemetry", type: "loki" });
  });

  it("the metrics endpoint speaks the text format directly too", { timeout: 20_000 }, () => {
    const text = inNs(["curl", "-sf", `http://127.0.0.1:${metricsPort}/metrics`]);
    expect(text).toMatch(/^# HELP routerd_events_total /m);
    expect(text).toMatch(/^routerd_telemetry_records_total\{pipeline="telemetry",sink="loki",type="loki",outcome="sent"\} [1-9]\d*$/m);
    expect(text).toMatch(/^routerd_daemons 1$/m);
  });
});
