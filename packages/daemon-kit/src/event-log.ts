// events.jsonl in the instance's state dir: one JSON event per line, rotated by size, keeping N old files.
// It lets seq numbers continue across restarts and seeds the replay ring with what came before.
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { DaemonEvent, Severity } from "./types.js";

export const EVENT_LOG_FILE = "events.jsonl";

export interface EventLogOptions {
  /** Rotate when the current file would grow past this. Default 1 MiB. */
  maxBytes?: number;
  /** Rotated files kept (events.jsonl.1 is the newest). Default 3. */
  keep?: number;
}

const SEVERITIES: ReadonlySet<string> = new Set<Severity>(["debug", "info", "warning", "error"]);

function isStringRecord(v: unknown): v is Record<string, string> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === "string");
}

export function isDaemonEvent(v: unknown): v is DaemonEvent {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Record<string, unknown>;
  return (
    typeof e.seq === "number" &&
    Number.isSafeInteger(e.seq) &&
    e.seq > 0 &&
    typeof e.time === "string" &&
    typeof e.topic === "string" &&
    typeof e.severity === "string" &&
    SEVERITIES.has(e.severity) &&
    typeof e.resource === "string" &&
    typeof e.message === "string" &&
    isStringRecord(e.attributes)
  );
}

/** Parses JSONL, skipping lines that are torn (a crash mid-write) or not events. */
export function parseEventLines(text: string): DaemonEvent[] {
  const out: DaemonEvent[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isDaemonEvent(value)) out.push(value);
    } catch {
      // torn line: skip
    }
  }
  return out;
}

/** events.jsonl, events.jsonl.1, ... events.jsonl.<keep>: newest first. */
export function eventLogFiles(dir: string, keep: number): string[] {
  const files = [join(dir, EVENT_LOG_FILE)];
  for (let i = 1; i <= keep; i++) files.push(join(dir, `${EVENT_LOG_FILE}.${i}`));
  return files;
}

export interface Recovered {
  /** Highest seq found on disk, 0 when there is none. */
  lastSeq: number;
  /** Up to `limit` newest events, oldest first. */
  recent: DaemonEvent[];
}

/** Reads the log files newest first until `limit` events are found. */
export function recoverEvents(dir: string, keep: number, limit: number): Recovered {
  let lastSeq = 0;
  const chunks: DaemonEvent[][] = [];
  let collected = 0;
  for (const file of eventLogFiles(dir, keep)) {
    if (!existsSync(file)) continue;
    const events = parseEventLines(readFileSync(file, "utf8")).sort((a, b) => a.seq - b.seq);
    for (const e of events) lastSeq = Math.max(lastSeq, e.seq);
    chunks.unshift(events);
    collected += events.length;
    if (collected >= limit && lastSeq > 0) break;
  }
  const all = chunks.flat();
  // Keep seq strictly increasing even if files overlap after a crash mid-rotation.
  const recent: DaemonEvent[] = [];
  for (const e of all) if (recent.length === 0 || e.seq > (recent[recent.length - 1]?.seq ?? 0)) recent.push(e);
  return { lastSeq, recent: limit > 0 ? recent.slice(-limit) : [] };
}

export class EventLog {
  private fd: number | undefined;
  private size = 0;
  readonly maxBytes: number;
  readonly keep: number;

  constructor(
    readonly dir: string,
    options: EventLogOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? 1024 * 1024;
    this.keep = options.keep ?? 3;
    if (!(this.maxBytes > 0)) throw new RangeError(`event log maxBytes must be > 0, got ${this.maxBytes}`);
    if (!Number.isInteger(this.keep) || this.keep < 0) throw new RangeError(`event log keep must be >= 0, got ${this.keep}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.openCurrent();
  }

  get path(): string {
    return join(this.dir, EVENT_LOG_FILE);
  }

  append(event: DaemonEvent): void {
    const line = Buffer.from(JSON.stringify(event) + "\n");
    if (this.size > 0 && this.size + line.length > this.maxBytes) this.rotate();
    this.write(line);
  }

  /** fsync and close; appends after this reopen the file. */
  close(): void {
    if (this.fd === undefined) return;
    try {
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }

  private write(buf: Buffer): void {
    if (this.fd === undefined) this.openCurrent();
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd!, buf, off, buf.length - off);
    this.size += buf.length;
  }

  private openCurrent(): void {
    this.fd = openSync(this.path, "a", 0o600);
    this.size = fstatSync(this.fd).size;
    // A crash can leave a torn last line; start ours on a fresh line so it stays parseable.
    if (this.size > 0 && !this.endsWithNewline()) this.write(Buffer.from("\n"));
  }

  private endsWithNewline(): boolean {
    const fd = openSync(this.path, "r");
    try {
      const buf = Buffer.alloc(1);
      readSync(fd, buf, 0, 1, this.size - 1);
      return buf[0] === 0x0a;
    } finally {
      closeSync(fd);
    }
  }

  private rotate(): void {
    this.close();
    const files = eventLogFiles(this.dir, this.keep);
    rmSync(files[files.length - 1]!, { force: true });
    for (let i = files.length - 1; i > 0; i--) {
      const from = files[i - 1]!;
      if (existsSync(from)) renameSync(from, files[i]!);
    }
    this.openCurrent();
  }
}
