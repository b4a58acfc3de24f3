// A bounded in-memory window of the newest events, ordered by seq, for WatchEvents replay.
import type { DaemonEvent } from "./types.js";

export class EventRing {
  private readonly slots: (DaemonEvent | undefined)[];
  private start = 0; // index of the oldest event
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`event ring capacity must be >= 1, got ${capacity}`);
    this.slots = new Array<DaemonEvent | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Appends an event; the oldest falls out when full. Seq must grow. */
  push(event: DaemonEvent): void {
    const newest = this.newest();
    if (newest && event.seq <= newest.seq) {
      throw new RangeError(`event seq ${event.seq} does not follow ${newest.seq}`);
    }
    if (this.count < this.capacity) {
      this.slots[(this.start + this.count) % this.capacity] = event;
      this.count += 1;
    } else {
      this.slots[this.start] = event;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  oldest(): DaemonEvent | undefined {
    return this.count === 0 ? undefined : this.at(0);
  }

  newest(): DaemonEvent | undefined {
    return this.count === 0 ? undefined : this.at(this.count - 1);
  }

  /** Retained events with seq > cursor, oldest first. */
  after(cursor: number): DaemonEvent[] {
    // Binary search for the first seq > cursor: seqs grow but may have gaps after a restart.
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).seq <= cursor) lo = mid + 1;
      else hi = mid;
    }
    const out: DaemonEvent[] = [];
    for (let i = lo; i < this.count; i++) out.push(this.at(i));
    return out;
  }

  private at(i: number): DaemonEvent {
    const event = this.slots[(this.start + i) % this.capacity];
    if (event === undefined) throw new Error(`event ring slot ${i} is empty`);
    return event;
  }
}
