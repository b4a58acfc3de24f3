import { describe, expect, it } from "vitest";
import type { TelemetryRecord } from "../record.js";
import { kafkaMessage } from "./kafka.js";
import { encodeLokiPush, lokiTimestamp } from "./loki.js";
import { encodePrometheus } from "./prometheus.js";
import { encodeRfc3164, encodeRfc5424, octetFrame, priority } from "./syslog.js";

const event: TelemetryRecord = {
  time: "2026-12-01T22:30:05.123Z",
  level: "warning",
  kind: "event",
  daemon: "healthcheck",
  instance: "default",
  message: "probe wan-ping is Unhealthy",
  topic: "probe.transition",
  resource: "HealthCheck/wan-ping",
  seq: 42,
  attributes: { from: "Healthy", note: 'say "hi" ] \\' },
};
const header = { facility: "local3" as const, tag: "routerd", hostname: "edge-1", pid: 1234 };

describe("syslog", () => {
  it("computes PRI from facility and level", () => {
    expect(priority("daemon", "info")).toBe(30);
    expect(priority("local7", "error")).toBe(187);
    expect(priority("kern", "debug")).toBe(7);
  });

  it("RFC 5424 carries the record's context as structured data, escaped", () => {
    expect(encodeRfc5424(event, header, { site: "attic" })).toBe(
      '<156>1 2026-12-01T22:30:05.123Z edge-1 routerd 1234 probe.transition [routerd@32473 daemon="healthcheck" instance="default" kind="event" resource="HealthCheck/wan-ping" seq="42" site="attic" from="Healthy" note="say \\"hi\\" \\] \\\\"] probe wan-ping is Unhealthy',
    );
  });

  it("RFC 5424 uses the nil value for an empty header field and MSGID log for log lines", () => {
    const line = encodeRfc5424({ ...event, kind: "log", topic: undefined, seq: undefined, resource: undefined, attributes: {} }, { ...header, hostname: "" });
    expect(line).toBe('<156>1 2026-12-01T22:30:05.123Z - routerd 1234 log [routerd@32473 daemon="healthcheck" instance="default" kind="log"] probe wan-ping is Unhealthy');
  });

  it("RFC 3164 for local sockets: BSD timestamp, TAG[PID], one line", () => {
    const line = encodeRfc3164({ ...event, message: "two\nlines" }, header);
    expect(line).toMatch(/^<156>Dec {1,2}\d{1,2} \d\d:\d\d:\d\d routerd\[1234\]: \[healthcheck\/default\] probe\.transition HealthCheck\/wan-ping: two lines$/);
  });

  it("frames TCP messages by octet count in bytes", () => {
    expect(octetFrame("héllo").toString("utf8")).toBe("6 héllo");
  });
});

describe("loki", () => {
  it("groups records into streams by their label set and keeps the rest in the JSON line", () => {
    const info = { ...event, level: "info" as const, seq: 43 };
    const body = JSON.parse(encodeLokiPush([event, info, { ...event, seq: 44 }], { router: "edge-1" }, { site: "attic" }));
    expect(body.streams).toHaveLength(2);
    expect(body.streams[0].stream).toEqual({ job: "routerd", daemon: "healthcheck", instance: "default", level: "warning", kind: "event", router: "edge-1" });
    expect(body.streams[0].values.map((v: [string, string]) => JSON.parse(v[1]).seq)).toEqual([42, 44]);
    expect(body.streams[0].values[0][0]).toBe("1796164205123000000");
    expect(JSON.parse(body.streams[1].values[0][1])).toMatchObject({ topic: "probe.transition", attributes: { site: "attic", from: "Healthy" } });
  });

  it("timestamps are nanoseconds as a decimal string", () => {
    expect(lokiTimestamp("1970-01-01T00:00:01.5Z")).toBe("1500000000");
  });
});

describe("kafka", () => {
  it("keys a message by its process, carries the JSON line as value and the filter fields as headers", () => {
    const m = kafkaMessage(event, { router: "edge-1" }, { site: "attic" });
    expect(m.key).toBe("healthcheck/default");
    expect(m.timestamp).toBe("1796164205123");
    expect(m.headers).toEqual({ job: "routerd", daemon: "healthcheck", instance: "default", level: "warning", kind: "event", topic: "probe.transition", router: "edge-1" });
    expect(JSON.parse(m.value)).toMatchObject({ seq: 42, message: "probe wan-ping is Unhealthy", attributes: { site: "attic", from: "Healthy" } });
    expect(kafkaMessage({ ...event, kind: "log", topic: undefined }, {}).headers).not.toHaveProperty("topic");
  });
});

describe("prometheus", () => {
  it("writes HELP, TYPE and samples with escaped label values", () => {
    expect(
      encodePrometheus([
        { name: "routerd_events_total", help: "Events emitted.", type: "counter", samples: [{ labels: { severity: "info", topic: 'a"b\\c\nd' }, value: 3 }] },
        { name: "routerd_up", help: "1 while serving.", type: "gauge", samples: [{ value: 1 }] },
      ]),
    ).toBe(
      '# HELP routerd_events_total Events emitted.\n# TYPE routerd_events_total counter\nrouterd_events_total{severity="info",topic="a\\"b\\\\c\\nd"} 3\n# HELP routerd_up 1 while serving.\n# TYPE routerd_up gauge\nrouterd_up 1\n',
    );
  });

  it("refuses an invalid metric name", () => {
    expect(() => encodePrometheus([{ name: "bad-name", help: "", type: "gauge", samples: [] }])).toThrow(/invalid metric name/);
  });
});
