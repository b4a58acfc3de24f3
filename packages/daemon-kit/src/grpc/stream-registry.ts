// Open server streams, so a graceful stop can end them instead of waiting for clients to hang up.
export class StreamRegistry {
  private readonly closers = new Set<() => void>();

  /** Registers how to end one stream; returns the function that forgets it. */
  track(close: () => void): () => void {
    this.closers.add(close);
    return () => this.closers.delete(close);
  }

  closeAll(): void {
    for (const close of [...this.closers]) close();
    this.closers.clear();
  }

  get size(): number {
    return this.closers.size;
  }
}
