import { describe, expect, it } from "vitest";
import { loadConfig } from "../load.js";
import { makeConfigView } from "../config-view.js";
import { telemetrySettings } from "./observability-pipeline.js";

const doc = (spec: string) => `apiVersion: routerd.net/v1alpha1
kind: Router
metadata: { name: r }
spec:
  resources:
    - apiVersion: system.routerd.net/v1alpha1
      kind: ObservabilityPipeline
      metadata: { name: obs }
      spec:
${spec.replace(/^/gm, "        ")}
`;

const load = (spec: string) => loadConfig(doc(spec), "router.yaml");
const errors = (spec: string) => load(spec).issues.filter((i) => i.severity === "error").map((i) => `${i.field}: ${i.message}`);

describe("ObservabilityPipeline", () => {
  it("accepts the original's fields and derives the runtime settings with defaults", () => {
    const r = load(`signals: [logs, metrics]
serviceNamespace: home
attributes: { site: attic }
logs:
  sinks:
    - { type: stdout }
    - { name: sys, type: syslog, minLevel: warning }
    - { name: l, type: loki, labels: { router: a }, loki: { url: "http://127.0.0.1:3100", tenant: t1, headers: { Authorization: "Bearer x" } } }
    - { name: k, type: kafka, kafka: { brokers: ["10.0.0.5:9092"], topic: routerd } }
    - { name: off, type: stdout, enabled: false }`);
    // No warnings either: kafka is a supported sink type.
    expect(r.issues).toEqual([]);
    const s = telemetrySettings(makeConfigView(r.config!));
    expect(s.metrics).toBe(true);
    expect(s.serviceNamespace).toBe("home");
    expect(s.attributes).toEqual({ site: "attic" });
    expect(s.sinks.map((k) => k.name)).toEqual(["stdout", "sys", "l", "k"]);
    expect(s.sinks[1]).toMatchObject({ minLevel: "warning", syslog: { network: "unixgram", address: "/dev/log", facility: "daemon", tag: "routerd" } });
    expect(s.sinks[2]).toMatchObject({ loki: { url: "http://127.0.0.1:3100", tenant: "t1", headers: { Authorization: "Bearer x" } }, labels: { router: "a" } });
    expect(s.sinks[3]).toMatchObject({ kafka: { brokers: ["10.0.0.5:9092"], topic: "routerd" } });
  });

  it("exports no sink when logs are not among the signals", () => {
    const r = load(`signals: [metrics]\nlogs: { sinks: [{ type: stdout }] }`);
    expect(telemetrySettings(makeConfigView(r.config!)).sinks).toEqual([]);
  });

  it("refuses sinks missing what their type needs, duplicate names and mismatched sections", () => {
    expect(errors(`logs:
  sinks:
    - { type: loki }
    - { type: kafka, kafka: { brokers: [] } }
    - { type: stdout, loki: { url: "http://x:1" } }
    - { type: stdout }
    - { type: syslog, syslog: { network: udp, address: /dev/log } }
    - { name: u, type: syslog, syslog: { network: unixgram, address: "127.0.0.1:514" } }`)).toEqual([
      "spec.logs.sinks[0].loki: a loki sink needs loki.url",
      "spec.logs.sinks[1].kafka: a kafka sink needs kafka.brokers and kafka.topic",
      "spec.logs.sinks[2].loki: belongs to a loki sink; this one is type stdout",
      "spec.logs.sinks[3].name: sink stdout is already logs.sinks[2]",
      "spec.logs.sinks[4].syslog.address: network udp needs host:port",
      "spec.logs.sinks[5].syslog.address: network unixgram needs a socket path",
    ]);
  });

  it("requires type, an OTLP endpoint for traces, and a deliberate insecure for plain http", () => {
    expect(errors(`logs: { sinks: [{ name: x }] }`).some((e) => e.startsWith("spec.logs.sinks[0].type"))).toBe(true);
    expect(errors(`signals: [traces]`)).toEqual(["spec.signals: traces are exported over OTLP only: otlp.endpoint is missing"]);
    expect(errors(`otlp: { endpoint: "http://127.0.0.1:4318" }`)).toEqual(["spec.otlp.endpoint: a plain http endpoint sends telemetry unencrypted"]);
    expect(errors(`otlp: { endpoint: "http://127.0.0.1:4318", insecure: true }`)).toEqual([]);
    expect(errors(`sampling: { rate: 1.5 }`)).toEqual(["spec.sampling.rate: 1.5 is out of range 0..1"]);
  });

  it("derives the OTLP settings (pipeline, signals, sampling, tls) and checks the client certificate pair", () => {
    const r = load(`signals: [logs, metrics, traces]
otlp: { endpoint: "https://otel.example:4318", headers: { Authorization: "Bearer t" }, tls: { caFile: /etc/ca.pem } }
sampling: { rate: 0.25 }`);
    expect(r.issues.filter((i) => i.severity === "error")).toEqual([]);
    expect(telemetrySettings(makeConfigView(r.config!)).otlp).toEqual({
      pipeline: "obs",
      endpoint: "https://otel.example:4318",
      headers: { Authorization: "Bearer t" },
      signals: ["logs", "metrics", "traces"],
      samplingRate: 0.25,
      tls: { caFile: "/etc/ca.pem", insecureSkipVerify: false },
    });
    expect(errors(`otlp: { endpoint: "https://otel.example:4318", tls: { certFile: /etc/c.pem } }`)).toEqual(["spec.otlp.tls: a client certificate needs both certFile and keyFile"]);
    const warnings = load(`otlp: { endpoint: "https://otel.example:4318", tls: { insecureSkipVerify: true } }`).issues.filter((i) => i.severity === "warning").map((i) => i.field);
    expect(warnings).toEqual(["spec.otlp.tls.insecureSkipVerify"]);
  });
});
