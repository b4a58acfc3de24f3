// A long-lived `ip -force -batch -` fed incrementally: each submit() is a chunk of lines followed by a
// sentinel line ip cannot parse, so it answers "Command failed -:N" for it at once, without a netlink round
// trip: that marks the chunk done. Errors of real lines are attributed by the line number ip reports,
// counted over the child's life. Chunks pipeline: several may be in flight, ip applies them in order.
// iproute2 6.1's batch mode keeps ~4 KB per line it ran (a 100k-route load: ~400 MB, measured), so the
// process is replaced after `recycleAfter` lines, between two chunks with nothing in flight (order kept).
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import type { Logger } from "pino";
import { deleteLine, replaceLine, type FibTarget, type NextHopKey } from "./lines.js";
import type { ChunkResult, FibChunk, FibWriter } from "./writer.js";

const SENTINEL = "routerd-chunk-done";
const FAILED = /^Command failed -:(\d+)$/;

interface Pending {
  first: number;
  count: number;
  failed: Map<number, string>;
  resolve(r: ChunkResult): void;
  reject(err: Error): void;
}

/** Lines one `ip -batch` runs before a fresh one takes over (~80 MB of ip's heap at most). */
const RECYCLE_AFTER = 20_000;

export class IpBatch {
  private child: ChildProcessWithoutNullStreams | undefined;
  /** Processes replaced after recycleAfter lines: their end is expected. */
  private readonly retired = new WeakSet<object>();
  private line = 0;
  private readonly pending: Pending[] = [];
  private buffered = "";
  private lastError: string[] = [];

  constructor(
    private readonly logger: Logger,
    private readonly command: string[] = ["ip", "-force", "-batch", "-"],
    private readonly recycleAfter = RECYCLE_AFTER,
  ) {}

  /** The process has run its share of lines: submit nothing more until what is in flight has applied. */
  get draining(): boolean {
    return this.child !== undefined && this.line >= this.recycleAfter;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  private ensure(): ChildProcessWithoutNullStreams {
    if (this.child !== undefined && this.draining && this.pending.length === 0) {
      // Nothing in flight: ip ends at the end of its input, a fresh one continues in order.
      this.retired.add(this.child);
      this.child.stdin.end();
      this.child = undefined;
    }
    if (this.child !== undefined) return this.child;
    this.line = 0;
    this.buffered = "";
    this.lastError = [];
    // stderr joins stdout so an error line always arrives before the sentinel that follows it.
    const [cmd, ...args] = this.command;
    const child = spawn("sh", ["-c", 'exec "$@" 2>&1', "sh", cmd!, ...args], { stdio: ["pipe", "pipe", "pipe"] });
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => !this.retired.has(child) && this.onData(d));
    child.stdin.on("error", () => undefined); // surfaced through "exit"
    child.on("exit", (code, signal) => {
      if (this.retired.has(child)) return; // replaced with nothing in flight: nothing to report
      this.child = undefined;
      this.line = 0;
      const err = new Error(`ip -batch exited (${code ?? signal}) with ${this.pending.length} chunk(s) in flight`);
      for (const p of this.pending.splice(0)) p.reject(err);
    });
    this.child = child as ChildProcessWithoutNullStreams;
    return this.child;
  }

  private onData(data: string): void {
    this.buffered += data;
    let nl: number;
    while ((nl = this.buffered.indexOf("\n")) >= 0) {
      const text = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      this.onLine(text);
    }
  }

  private onLine(text: string): void {
    const m = FAILED.exec(text);
    if (m) {
      const n = Number(m[1]);
      const head = this.pending[0];
      if (head !== undefined && n === head.first + head.count) {
        // The sentinel: everything before it has been applied.
        this.lastError = [];
        this.pending.shift();
        head.resolve({ failed: head.failed });
        return;
      }
      const owner = this.pending.find((p) => n >= p.first && n < p.first + p.count);
      if (owner !== undefined) owner.failed.set(n - owner.first, this.lastError.join(" ") || "failed");
      this.lastError = [];
      return;
    }
    this.lastError.push(text.trim());
  }

  /** Applies lines in order; resolves when ip has processed all of them. */
  submit(lines: readonly string[]): Promise<ChunkResult> {
    return this.submitText(lines.length === 0 ? "" : lines.join("\n") + "\n", lines.length);
  }

  /** The same for `count` lines already joined, each ending in a newline (no array of line strings kept). */
  submitText(text: string, count: number): Promise<ChunkResult> {
    if (count === 0) return Promise.resolve({ failed: new Map() });
    const child = this.ensure();
    const first = this.line + 1;
    this.line += count + 1; // + the sentinel
    return new Promise<ChunkResult>((resolve, reject) => {
      this.pending.push({ first, count, failed: new Map(), resolve, reject });
      child.stdin.write(text + SENTINEL + "\n");
    });
  }

  get inFlight(): number {
    return this.pending.length;
  }

  close(): void {
    this.child?.stdin.end();
    this.child = undefined;
  }
}

/** The `ip` FIB writer: a chunk is its lines (lines.ts), written at once to the long-lived IpBatch. */
export class IpWriter implements FibWriter {
  readonly kind = "ip";
  readonly flushesInBulk = true;

  constructor(private readonly batch: Pick<IpBatch, "submitText" | "draining" | "close">) {}

  get draining(): boolean {
    return this.batch.draining;
  }

  chunk(target: FibTarget): FibChunk {
    // Only the joined text is kept, no array of line strings (docs/performance.md, BGP, Session 6).
    let text = "";
    let count = 0;
    return {
      replace: (prefix: string, hops: NextHopKey) => void ((text += replaceLine(prefix, hops, target) + "\n"), count++),
      delete: (prefix: string, metric: number) => void ((text += deleteLine(prefix, target, metric) + "\n"), count++),
      get count() {
        return count;
      },
      submit: () => this.batch.submitText(text, count),
    };
  }

  close(): void {
    this.batch.close();
  }
}
