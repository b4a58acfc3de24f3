// A bounded map with least-recently-used eviction, as an intrusive doubly linked list: a hit is two pointer
// moves, no allocation. Bounded by entry count and by a byte budget (entries report their own size).

export interface LruNode {
  key: string;
  size: number;
  prev: LruNode | undefined;
  next: LruNode | undefined;
}

export class Lru<T extends LruNode> {
  private readonly map = new Map<string, T>();
  private head: T | undefined;
  private tail: T | undefined;
  private bytes = 0;

  constructor(
    private maxEntries: number,
    private maxBytes: number,
    private readonly onEvict?: (node: T) => void,
  ) {}

  get size(): number {
    return this.map.size;
  }

  get byteSize(): number {
    return this.bytes;
  }

  /** The node, moved to the front. */
  get(key: string): T | undefined {
    const node = this.map.get(key);
    if (node !== undefined && node !== this.head) {
      this.unlink(node);
      this.pushFront(node);
    }
    return node;
  }

  /** The node without touching its recency. */
  peek(key: string): T | undefined {
    return this.map.get(key);
  }

  set(node: T): void {
    const old = this.map.get(node.key);
    if (old !== undefined) this.remove(old);
    this.map.set(node.key, node);
    this.pushFront(node);
    this.bytes += node.size;
    this.trim();
  }

  remove(node: T): void {
    if (this.map.get(node.key) !== node) return;
    this.map.delete(node.key);
    this.unlink(node);
    this.bytes -= node.size;
  }

  delete(key: string): boolean {
    const node = this.map.get(key);
    if (node === undefined) return false;
    this.remove(node);
    return true;
  }

  clear(): void {
    this.map.clear();
    this.head = this.tail = undefined;
    this.bytes = 0;
  }

  resize(maxEntries: number, maxBytes: number): void {
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.trim();
  }

  /** Most recent first. */
  *values(): IterableIterator<T> {
    for (let n = this.head; n !== undefined; n = n.next as T | undefined) yield n;
  }

  private trim(): void {
    while (this.tail !== undefined && (this.map.size > this.maxEntries || this.bytes > this.maxBytes)) {
      const victim = this.tail;
      this.remove(victim);
      this.onEvict?.(victim);
    }
  }

  private pushFront(node: T): void {
    node.prev = undefined;
    node.next = this.head;
    if (this.head !== undefined) this.head.prev = node;
    this.head = node;
    if (this.tail === undefined) this.tail = node;
  }

  private unlink(node: T): void {
    if (node.prev !== undefined) node.prev.next = node.next;
    else this.head = node.next as T | undefined;
    if (node.next !== undefined) node.next.prev = node.prev;
    else this.tail = node.prev as T | undefined;
    node.prev = node.next = undefined;
  }
}
