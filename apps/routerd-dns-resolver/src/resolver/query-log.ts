// The query log: one JSON object per line, appended to a file. Writes are buffered by the stream; when the
// disk cannot keep up, lines are dropped and counted rather than held in memory without bound.
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";

export interface QueryLogEntry {
  time: string;
  client: string;
  protocol: "udp" | "tcp";
  name: string;
  type: string;
  rcode: string;
  /** local, cache, stale, upstream, refused, error. */
  source: string;
  upstream?: string;
  answers: number;
  ms: number;
  dnssec?: string;
}

const MAX_BUFFERED = 1 << 20;

export class QueryLog {
  private readonly stream: WriteStream;
  dropped = 0;
  written = 0;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.stream = createWriteStream(path, { flags: "a", mode: 0o640 });
    this.stream.on("error", () => {
      this.dropped++;
    });
  }

  write(entry: QueryLogEntry): void {
    if (this.stream.writableLength > MAX_BUFFERED || this.stream.destroyed) {
      this.dropped++;
      return;
    }
    this.stream.write(`${JSON.stringify(entry)}\n`);
    this.written++;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(resolve));
  }
}
