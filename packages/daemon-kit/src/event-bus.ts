// Assigns seq numbers, keeps the replay ring, appends to the event log and fans events out to watchers.
import { EventRing } from "./event-ring.js";
import type { EventLog } from "./event-log.js";
import type { DaemonEvent, EventInput } from "./types.js";

export type EventListener = (event: DaemonEvent) => void;

export interface EventBusOptions {
  ringSize: number;
  /** Highest seq already used (recovered from disk); the next event gets lastSeq + 1. */
  lastSeq?: number;
  /** Events from before a restart, oldest first, to seed the ring. */
  seed?: readonly DaemonEvent[];
  log?: EventLog;
  now?: () => Date;
  /** Called when the log cannot be written or a listener throws; the event still reaches the ring. */
  onError?: (err: unknown, where: "log" | "listener") => void;
}

export function matchesTopics(event: DaemonEvent, prefixes: readonly string[]): boolean {
  return prefixes.length === 0 || prefixes.some((p) => event.topic.startsWith(p));
}

function stringify(attributes: EventInput["attributes"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(attributes ?? {})) out[k] = String(v);
  return out;
}

export class EventBus {
  private readonly ring: EventRing;
  private readonly listeners = new Set<EventListener>();
  private seq: number;

  constructor(private readonly options: EventBusOptions) {
    this.ring = new EventRing(options.ringSize);
    this.seq = options.lastSeq ?? 0;
    for (const e of options.seed ?? []) {
      if (e.seq > this.seq) this.seq = e.seq;
      const newest = this.ring.newest();
      if (!newest || e.seq > newest.seq) this.ring.push(e);
    }
  }

  get lastSeq(): number {
    return this.seq;
  }

  emit(input: EventInput): DaemonEvent {
    this.seq += 1;
    const event: DaemonEvent = {
      seq: this.seq,
      time: (this.options.now?.() ?? new Date()).toISOString(),
      topic: input.topic,
      severity: input.severity ?? "info",
      resource: input.resource ?? "",
      message: input.message,
      attributes: stringify(input.attributes),
    };
    this.ring.push(event);
    try {
      this.options.log?.append(event);
    } catch (err) {
      this.options.onError?.(err, "log");
    }
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (err) {
        this.options.onError?.(err, "listener");
      }
    }
    return event;
  }

  /** Retained events with seq > cursor, oldest first. */
  replay(cursor: number): DaemonEvent[] {
    return this.ring.after(cursor);
  }

  /** Live events from now on; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }
}
