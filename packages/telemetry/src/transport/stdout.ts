// One JSON line per record on routerd's standard output (journald or the supervisor's log keeps it).
import { recordJson, type TelemetryRecord } from "../record.js";
import { withTimeout, writeStream, type Transport } from "./transport.js";

export function stdoutTransport(attributes: Record<string, string>, out: NodeJS.WritableStream = process.stdout): Transport {
  return {
    send: (records: readonly TelemetryRecord[], timeoutMs: number) =>
      withTimeout(writeStream(out, records.map((r) => recordJson(r, attributes) + "\n").join("")), timeoutMs, "stdout write"),
    close: () => undefined,
  };
}
