// Kafka through kafkajs (pure JS), imported only when a kafka sink is configured: a process without one never
// loads it. One producer per sink, connected on the first send; any failed send throws that producer away
// (the sink counts the batch as dropped and backs off) and the next send connects afresh, so a broker that
// died or moved costs drops, never a stuck connection. kafkajs's own retries are cut to one short retry, and
// the sink's timeout bounds every send; kafkajs logs nothing (its errors reach status as lastError).
import type { Kafka, Producer } from "kafkajs";
import { kafkaMessage } from "../encode/kafka.js";
import type { TelemetryRecord } from "../record.js";
import { withTimeout, type Transport } from "./transport.js";

export interface KafkaTarget {
  brokers: string[];
  topic: string;
}

type KafkaJs = typeof import("kafkajs");

/** Leader acknowledgement: a record is sent once the partition leader has it (not every replica). */
const ACKS = 1;

function newClient(lib: KafkaJs, brokers: string[], timeoutMs: number): Kafka {
  return new lib.Kafka({
    clientId: "routerd",
    brokers,
    connectionTimeout: Math.min(3000, timeoutMs),
    requestTimeout: timeoutMs,
    retry: { retries: 1, initialRetryTime: 200, maxRetryTime: 1000 },
    logLevel: lib.logLevel.NOTHING,
  });
}

export function kafkaTransport(target: KafkaTarget, labels: Record<string, string>, attributes: Record<string, string>): Transport {
  // Loading starts now (not charged to the first send's timeout); a failure shows on the first send.
  const lib: Promise<KafkaJs> = import("kafkajs").then((m) => (m as unknown as { default: KafkaJs }).default ?? m);
  lib.catch(() => undefined);
  let producer: Promise<Producer> | undefined;

  const connected = (timeoutMs: number): Promise<Producer> =>
    (producer ??= lib.then(async (k) => {
      const p = newClient(k, target.brokers, timeoutMs).producer({ createPartitioner: k.Partitioners.DefaultPartitioner, retry: { retries: 1, initialRetryTime: 200, maxRetryTime: 1000 } });
      await p.connect();
      return p;
    }));

  const reset = () => {
    const old = producer;
    producer = undefined;
    void old?.then((p) => p.disconnect()).catch(() => undefined);
  };

  return {
    async send(records: readonly TelemetryRecord[], timeoutMs: number) {
      const messages = records.map((r) => kafkaMessage(r, labels, attributes));
      await lib; // loading kafkajs (once) is not charged to a send's timeout; connecting is
      const work = (async () => {
        const p = await connected(timeoutMs);
        await p.send({ topic: target.topic, acks: ACKS, timeout: timeoutMs, messages });
      })();
      try {
        await withTimeout(work, timeoutMs, `kafka produce to ${target.brokers.join(",")}`);
      } catch (err) {
        reset();
        throw err;
      }
    },
    close: reset,
  };
}
