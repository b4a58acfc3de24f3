// Sink types, data-driven: each turns its settings into a transport. Adding a sink type is one entry.
import type { SinkSettings } from "./settings.js";
import { kafkaTransport } from "./transport/kafka.js";
import { lokiTransport } from "./transport/loki.js";
import { stdoutTransport } from "./transport/stdout.js";
import { syslogTransport } from "./transport/syslog.js";
import type { Transport } from "./transport/transport.js";

export interface TransportContext {
  /** Added to every record (the pipelines' attributes). */
  attributes: Record<string, string>;
  stdout?: NodeJS.WritableStream;
}

type Factory = (sink: SinkSettings, ctx: TransportContext) => Transport;

function need<T>(value: T | undefined, sink: SinkSettings, what: string): T {
  if (value === undefined) throw new Error(`sink ${sink.name}: ${what} is missing`);
  return value;
}

export const SINK_TRANSPORTS: Readonly<Record<string, Factory>> = {
  stdout: (_sink, ctx) => stdoutTransport(ctx.attributes, ctx.stdout),
  syslog: (sink, ctx) => syslogTransport(need(sink.syslog, sink, "syslog"), { ...sink.labels, ...ctx.attributes }),
  loki: (sink, ctx) => lokiTransport(need(sink.loki, sink, "loki"), sink.labels, ctx.attributes),
  kafka: (sink, ctx) => kafkaTransport(need(sink.kafka, sink, "kafka"), sink.labels, ctx.attributes),
};

export function createTransport(sink: SinkSettings, ctx: TransportContext): Transport {
  const factory = SINK_TRANSPORTS[sink.type];
  if (!factory) throw new Error(`sink type ${sink.type} is not supported by this routerd`);
  return factory(sink, ctx);
}
