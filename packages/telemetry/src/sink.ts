// One sink: a bounded queue in front of a transport, drained by a loop that sends batches. publish() is
// synchronous and O(1): a slow or dead receiver only fills the queue (oldest records dropped, counted),
// and a failed batch is dropped and counted, then the loop backs off before trying again.
import { BoundedQueue } from "./bounded-queue.js";
import { levelAtLeast, type Level, type TelemetryRecord } from "./record.js";
import type { Transport } from "./transport/transport.js";

export interface SinkLimits {
  /** Records held while the receiver is slow or away. */
  queueSize: number;
  batchSize: number;
  /** Longest wait before a partial batch goes. */
  flushIntervalMs: number;
  sendTimeoutMs: number;
  /** Back-off after a failed send, doubled per failure up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_LIMITS: SinkLimits = { queueSize: 2000, batchSize: 200, flushIntervalMs: 1000, sendTimeoutMs: 5000, backoffMs: 1000, maxBackoffMs: 30_000 };

export interface SinkStats {
  name: string;
  type: string;
  /** Accepted into the queue (at or above minLevel). */
  accepted: number;
  sent: number;
  /** Lost: pushed out of a full queue, or in a batch whose send failed. */
  dropped: number;
  buffered: number;
  failedSends: number;
  state: "ok" | "failing" | "idle";
  lastError?: string;
  lastErrorAt?: string;
  lastSentAt?: string;
}

/** Which items a sink takes: records at or above a level, or any test on the item. */
export type SinkFilter<T> = Level | ((item: T) => boolean);

export class Sink<T = TelemetryRecord> {
  private readonly queue: BoundedQueue<T>;
  private readonly accepts: (item: T) => boolean;
  private accepted = 0;
  private sent = 0;
  private failedRecords = 0;
  private failedSends = 0;
  private consecutiveFailures = 0;
  private lastError?: string;
  private lastErrorAt?: string;
  private lastSentAt?: string;
  private timer?: NodeJS.Timeout;
  private sending = false;
  private closed = false;

  constructor(
    readonly name: string,
    readonly type: string,
    filter: SinkFilter<T>,
    private readonly transport: Transport<T>,
    private readonly limits: SinkLimits = DEFAULT_LIMITS,
  ) {
    this.queue = new BoundedQueue(limits.queueSize);
    this.accepts = typeof filter === "function" ? filter : (item) => levelAtLeast((item as TelemetryRecord).level, filter);
  }

  publish(record: T): void {
    if (this.closed || !this.accepts(record)) return;
    this.accepted += 1;
    this.queue.push(record);
    if (this.sending) return;
    if (this.queue.length >= this.limits.batchSize && this.consecutiveFailures === 0) this.schedule(0);
    else this.schedule(this.limits.flushIntervalMs);
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer && ms > 0) return; // a flush is already due
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.drain(), ms);
    this.timer.unref();
  }

  private async drain(): Promise<void> {
    this.timer = undefined;
    if (this.sending || this.closed) return;
    this.sending = true;
    try {
      while (this.queue.length && !this.closed) {
        const batch = this.queue.take(this.limits.batchSize);
        try {
          await this.transport.send(batch, this.limits.sendTimeoutMs);
          this.sent += batch.length;
          this.consecutiveFailures = 0;
          this.lastSentAt = new Date().toISOString();
        } catch (err) {
          this.failedRecords += batch.length;
          this.failedSends += 1;
          this.consecutiveFailures += 1;
          this.lastError = (err as Error).message ?? String(err);
          this.lastErrorAt = new Date().toISOString();
          const backoff = Math.min(this.limits.maxBackoffMs, this.limits.backoffMs * 2 ** (this.consecutiveFailures - 1));
          this.sending = false;
          this.schedule(backoff);
          return;
        }
      }
    } finally {
      this.sending = false;
    }
  }

  /** Sends what is queued now (bounded by the send timeout); for shutdown and tests. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.consecutiveFailures = 0;
    await this.drain();
  }

  stats(): SinkStats {
    return {
      name: this.name,
      type: this.type,
      accepted: this.accepted,
      sent: this.sent,
      dropped: this.queue.dropped + this.failedRecords,
      buffered: this.queue.length,
      failedSends: this.failedSends,
      state: this.consecutiveFailures ? "failing" : this.sent ? "ok" : "idle",
      ...(this.lastError ? { lastError: this.lastError, lastErrorAt: this.lastErrorAt } : {}),
      ...(this.lastSentAt ? { lastSentAt: this.lastSentAt } : {}),
    };
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.transport.close();
  }
}
