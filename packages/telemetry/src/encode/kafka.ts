// A record as a Kafka message. The value is the same JSON line stdout and Loki carry; the key is the
// producing process (daemon/instance), so the default partitioner keeps each process's records in order on
// one partition; the headers repeat the few fields a consumer filters on without parsing the value (the
// Loki labels: job, daemon, instance, level, kind, topic when there is one, and the sink's own labels).
import { recordJson, type TelemetryRecord } from "../record.js";
import { lokiLabels } from "./loki.js";

export interface KafkaMessage {
  key: string;
  value: string;
  headers: Record<string, string>;
  /** Epoch milliseconds as a decimal string (kafkajs's form of the record timestamp). */
  timestamp: string;
}

export function kafkaMessage(r: TelemetryRecord, labels: Record<string, string>, attributes: Record<string, string> = {}): KafkaMessage {
  const ms = Date.parse(r.time);
  return {
    key: `${r.daemon}/${r.instance}`,
    value: recordJson(r, attributes),
    headers: { ...lokiLabels(r, {}), ...(r.topic ? { topic: r.topic } : {}), ...labels },
    timestamp: String(Number.isFinite(ms) ? ms : Date.now()),
  };
}
