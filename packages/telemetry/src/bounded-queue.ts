// A sink's buffer: a fixed-size ring that never blocks the producer. When full, the oldest record goes
// (the newest say most about now) and is counted as dropped.

export class BoundedQueue<T> {
  private readonly items: (T | undefined)[];
  private head = 0;
  private size = 0;
  /** Records pushed out because the queue was full. */
  dropped = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`queue capacity must be a positive integer, not ${capacity}`);
    this.items = new Array<T | undefined>(capacity);
  }

  get length(): number {
    return this.size;
  }

  push(item: T): void {
    if (this.size === this.capacity) {
      this.items[this.head] = undefined;
      this.head = (this.head + 1) % this.capacity;
      this.size -= 1;
      this.dropped += 1;
    }
    this.items[(this.head + this.size) % this.capacity] = item;
    this.size += 1;
  }

  /** Removes and returns up to `max` records, oldest first. */
  take(max: number): T[] {
    const n = Math.min(max, this.size);
    const out: T[] = [];
    for (let i = 0; i < n; i++) {
      out.push(this.items[this.head] as T);
      this.items[this.head] = undefined;
      this.head = (this.head + 1) % this.capacity;
    }
    this.size -= n;
    return out;
  }
}
