// The Loki push API body (POST /loki/api/v1/push, JSON form): records grouped into streams by label set.
// Labels stay few and bounded (job, daemon, instance, level, kind and the sink's own); everything that
// varies per record (topic, resource, attributes) is in the JSON line, where LogQL's `| json` finds it.
import { recordJson, type TelemetryRecord } from "../record.js";

export const LOKI_PUSH_PATH = "/loki/api/v1/push";

export interface LokiStream {
  stream: Record<string, string>;
  values: [string, string][];
}

export function lokiLabels(r: TelemetryRecord, constant: Record<string, string>): Record<string, string> {
  return { job: "routerd", daemon: r.daemon, instance: r.instance, level: r.level, kind: r.kind, ...constant };
}

/** Nanoseconds since the epoch, as the decimal string Loki wants. */
export function lokiTimestamp(iso: string): string {
  const ms = Date.parse(iso);
  return `${BigInt(Number.isFinite(ms) ? ms : Date.now()) * 1_000_000n}`;
}

export function encodeLokiPush(records: readonly TelemetryRecord[], labels: Record<string, string>, attributes: Record<string, string> = {}): string {
  const streams = new Map<string, LokiStream>();
  for (const r of records) {
    const stream = lokiLabels(r, labels);
    const key = JSON.stringify(Object.entries(stream).sort());
    let s = streams.get(key);
    if (!s) streams.set(key, (s = { stream, values: [] }));
    s.values.push([lokiTimestamp(r.time), recordJson(r, attributes)]);
  }
  return JSON.stringify({ streams: [...streams.values()] });
}
