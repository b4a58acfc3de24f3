// What a sink sends through. send() must settle within its timeout whatever the receiver does; the sink
// never waits on it from the producer's side.
import type { TelemetryRecord } from "../record.js";

export interface Transport<T = TelemetryRecord> {
  send(records: readonly T[], timeoutMs: number): Promise<void>;
  close(): void;
}

export class SendTimeout extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not finish within ${ms} ms`);
  }
}

/** `work`, or a SendTimeout after `ms` (the work itself is left to settle or be torn down by `onTimeout`). */
export function withTimeout<T>(work: Promise<T>, ms: number, what: string, onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  work.catch(() => undefined); // a late failure after the timeout is not an unhandled rejection
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new SendTimeout(what, ms));
    }, ms);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Writes to a stream, waiting for 'drain' when its buffer is full (bounded by the caller's timeout). */
export function writeStream(stream: NodeJS.WritableStream, chunk: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const ok = stream.write(chunk, (err) => (err ? reject(err) : ok && resolve()));
    if (!ok) stream.once("drain", () => resolve());
  });
}
