// The Kafka log sink end to end: `routerd serve` in a namespace, with a HealthCheck so routerd-healthcheck
// runs too, produces its events and logs through kafkajs to a broker stand-in in the same namespace
// (kafka-receiver.mjs: ApiVersions, Metadata, Produce v3-7, RecordBatch v2 decoded with its CRC32C checked).
// No Kafka broker is packaged for Debian 12 or npm: a real broker (replication, acks from replicas, topic
// auto-creation, SASL/TLS) was not run. A broker that disappears costs counted drops; serve, the daemon and
// a Loki sink carry on.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { ROUTERD } from "../lib/netns.js";
import { Router, ensureBuilt, until } from "../dhcpv4/router.js";
import { Lab } from "../dhcpv4-client/netns.js";
import { getJson, startReceiver } from "./receiver.js";

interface KafkaRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string | null>;
}
interface Received {
  requests: { apiKey: number; version: number; clientId: string | null }[];
  records: KafkaRecord[];
  errors: string[];
}

const TOPIC = "routerd.events";
const lab = new Lab("kafka");
let router: Router;
let broker: { child: ChildProcess; ports: { port: number; http: number } };
let loki: { child: ChildProcess; ports: { loki: number } };

const received = () => getJson<Received>(router.ns, `http://127.0.0.1:${broker.ports.http}/received`);
/** Every record with its value parsed (the JSON line routerd writes). */
const records = () => received().records.map((r) => ({ ...r, json: JSON.parse(r.value ?? "null") as Record<string, unknown> }));
const sinks = async () => ((await router.published("ObservabilityPipeline/telemetry"))?.sinks ?? []) as Record<string, unknown>[];
const lokiMessages = () =>
  getJson<{ pushes: { body: { streams: { values: [string, string][] }[] } }[] }>(router.ns, `http://127.0.0.1:${loki.ports.loki}/received`).pushes.flatMap((p) =>
    p.body.streams.flatMap((s) => s.values.map(([, line]) => JSON.parse(line) as { message: string; daemon: string; kind: string })),
  );

function writeConfig(extra: ReturnType<typeof res>[] = []): void {
  router.writeConfig([
    res("HealthCheck", "self", { type: "icmp", target: "127.0.0.1", interval: "500ms", timeout: "300ms" }),
    {
      ...res("ObservabilityPipeline", "telemetry", {
        attributes: { site: "lab" },
        logs: {
          sinks: [
            { name: "kafka", type: "kafka", labels: { router: "edge-test" }, kafka: { brokers: [`127.0.0.1:${broker.ports.port}`], topic: TOPIC } },
            { name: "loki", type: "loki", loki: { url: `http://127.0.0.1:${loki.ports.loki}` } },
          ],
        },
      }),
      apiVersion: "system.routerd.net/v1alpha1",
    },
    ...extra,
  ]);
}

beforeAll(async () => {
  ensureBuilt();
  router = new Router(lab);
  broker = await startReceiver(lab, router.ns, "kafka-receiver.mjs");
  loki = await startReceiver(lab, router.ns, "receivers.mjs");
  writeConfig();
  router.serve = lab.spawn(router.ns, [process.execPath, ROUTERD, "serve", "--config", router.configPath, "--state-dir", router.stateDir, "--run-dir", router.runDir, "--root", router.root, "--interval", "2s", "--stop-daemons-on-exit"]);
  router.serve.stderr?.on("data", (b: Buffer) => router.serveLog.push(b.toString()));
}, 120_000);

afterAll(async () => {
  if (process.env.ROUTERD_E2E_DEBUG) process.stderr.write(router?.serveLog.join("") ?? "");
  await router?.cleanup();
});

describe("Kafka log sink", () => {
  it("serve's and routerd-healthcheck's events arrive as records: key, JSON value, headers, timestamp", { timeout: 120_000 }, async () => {
    const all = await until(
      "records of routerd and routerd-healthcheck at the broker",
      () => {
        const r = records();
        return r.some((x) => x.json.topic === "config.loaded") && r.some((x) => x.json.topic === "healthcheck.transition") ? r : undefined;
      },
      100_000,
      500,
    );
    const got = received();
    // Everything kafkajs sent decoded, and every batch's CRC32C matched.
    expect(got.errors).toEqual([]);
    const produce = got.requests.filter((q) => q.apiKey === 0);
    expect(produce.length).toBeGreaterThan(0);
    for (const q of produce) expect(q).toMatchObject({ version: 7, clientId: "routerd" });
    expect(got.requests.some((q) => q.apiKey === 18) && got.requests.some((q) => q.apiKey === 3)).toBe(true);

    const loaded = all.find((x) => x.json.topic === "config.loaded")!;
    expect(loaded.topic).toBe(TOPIC);
    expect(loaded.key).toBe("routerd/core");
    expect(loaded.headers).toEqual({ job: "routerd", daemon: "routerd", instance: "core", level: "info", kind: "event", topic: "config.loaded", router: "edge-test" });
    expect(loaded.json).toMatchObject({ kind: "event", daemon: "routerd", instance: "core", message: "2 resources", level: "info", attributes: { site: "lab" } });
    expect(loaded.timestamp).toBe(Date.parse(String(loaded.json.time)));

    const hc = all.find((x) => x.json.topic === "healthcheck.transition")!;
    expect(hc.key).toBe(`healthcheck/${String(hc.json.instance)}`);
    expect(hc.headers).toMatchObject({ daemon: "healthcheck", kind: "event", topic: "healthcheck.transition", router: "edge-test" });
    expect(hc.json).toMatchObject({ daemon: "healthcheck", resource: "self", attributes: { site: "lab", target: "127.0.0.1" } });
    // serve's pino log lines travel too.
    expect(all.some((x) => x.json.daemon === "routerd" && x.json.kind === "log" && x.headers.kind === "log")).toBe(true);
    // The broker assigns offsets in order on the one partition.
    expect(all.map((x) => x.offset)).toEqual(all.map((_, i) => i));

    const kafka = await until("the kafka sink's counters in status", async () => (await sinks()).find((x) => x.name === "kafka" && (x.sent as number) > 0), 30_000, 1000);
    expect(kafka, JSON.stringify(kafka)).toMatchObject({ type: "kafka", state: "ok", dropped: 0 });
  });

  it("a broker that disappears: drops counted, serve, routerd-healthcheck and the Loki sink carry on", { timeout: 120_000 }, async () => {
    broker.child.kill("SIGKILL");
    // New events after the kill: serve reloads, routerd-healthcheck starts two more probes.
    writeConfig(["self2", "self3"].map((n) => res("HealthCheck", n, { type: "icmp", target: "127.0.0.1", interval: "1s", timeout: "500ms" })));
    const failing = await until(
      "the kafka sink failing with drops",
      async () => (await sinks()).find((x) => x.name === "kafka" && x.state === "failing" && (x.dropped as number) > 0),
      60_000,
      1000,
    );
    expect(String(failing.lastError)).toMatch(/ECONNREFUSED|connect|Connection|did not finish/i);
    // Nothing waited on the dead broker: the reload and the daemon's new probes reached Loki.
    await until("the reload at the Loki receiver", () => lokiMessages().some((m) => m.message === "4 resources"), 30_000, 500);
    await until("routerd-healthcheck events about the new probes at Loki", () => lokiMessages().some((m) => m.daemon === "healthcheck" && m.kind === "event" && /self[23]/.test(JSON.stringify(m))), 30_000, 500);
    // More records keep coming and keep being counted as dropped (bounded: none is buffered without end).
    const before = failing.dropped as number;
    writeConfig([res("HealthCheck", "self4", { type: "icmp", target: "127.0.0.1", interval: "1s", timeout: "500ms" })]);
    const later = await until("more drops", async () => (await sinks()).find((x) => x.name === "kafka" && (x.dropped as number) > before), 60_000, 1000);
    expect(later.buffered as number).toBeLessThanOrEqual(2000);
    expect((await sinks()).find((x) => x.name === "loki")).toMatchObject({ state: "ok", dropped: 0 });
  });
});
