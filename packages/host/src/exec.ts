// Running host commands. Everything that touches the kernel goes through a CommandRunner, so the
// host port is one seam (tests run the real thing inside namespaces they made).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, openSync, readdirSync, readSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  input?: string;
  /**
   * Large output (a listing of 10,000 routes) goes to an unlinked temporary file instead of a pipe, so the
   * command runs to the end while this process is busy, rather than stalling once the 64 KiB pipe is full.
   */
  largeOutput?: boolean;
}

export interface CommandRunner {
  run(command: string, args: readonly string[], options?: RunOptions): Promise<CommandResult>;
}

const OUTPUT_PREFIX = ".routerd-out-";
let swept = false;

/**
 * A process killed between creating and unlinking its output file (kill -9 at the wrong moment) leaves an
 * empty file behind; the next routerd removes those whose process is gone.
 */
export function sweepDeadOutputFiles(): void {
  swept = true;
  try {
    for (const f of readdirSync(tmpdir())) {
      if (!f.startsWith(OUTPUT_PREFIX)) continue;
      const pid = Number.parseInt(f.slice(OUTPUT_PREFIX.length), 10);
      if (Number.isInteger(pid) && pid !== process.pid && !alive(pid)) unlinkSync(join(tmpdir(), f));
    }
  } catch {
    /* best effort: an unreadable tmp dir only means nothing is swept */
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** An unlinked temporary file for a child's stdout, or undefined when none can be made (then a pipe is used). */
function outputFile(): number | undefined {
  if (!swept) sweepDeadOutputFiles();
  const path = join(tmpdir(), `${OUTPUT_PREFIX}${process.pid}-${randomBytes(6).toString("hex")}`);
  try {
    const fd = openSync(path, "wx+", 0o600);
    unlinkSync(path);
    return fd;
  } catch {
    return undefined;
  }
}

function readOutputFile(fd: number): string {
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      const n = readSync(fd, buf, off, size - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off).toString();
  } finally {
    closeQuietly(fd);
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    /* already closed */
  }
}

export class CommandError extends Error {
  constructor(
    readonly command: string,
    readonly result: CommandResult | undefined,
    detail: string,
  ) {
    super(`${command}: ${detail}`);
    this.name = "CommandError";
  }
}

export const systemRunner: CommandRunner = {
  run(command, args, options = {}) {
    return new Promise((resolve) => {
      let file = options.largeOutput ? outputFile() : undefined;
      const child = spawn(command, args, { stdio: ["pipe", file ?? "pipe", "pipe"] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout?.on("data", (b: Buffer) => out.push(b));
      child.stderr!.on("data", (b: Buffer) => err.push(b));
      // The output file is read and closed exactly once: a failed spawn emits "error" and then "close".
      const takeOutput = (): string => {
        const fd = file;
        file = undefined;
        return fd !== undefined ? readOutputFile(fd) : Buffer.concat(out).toString();
      };
      let settled = false;
      child.on("error", (e: NodeJS.ErrnoException) => {
        if (settled) return;
        settled = true;
        takeOutput();
        resolve({ code: e.code === "ENOENT" ? 127 : 126, stdout: "", stderr: `${command}: ${e.code === "ENOENT" ? "not installed (not found in PATH)" : e.message}` });
      });
      child.on("close", (code, signal) => {
        if (settled) return;
        settled = true;
        resolve({ code: code ?? (signal ? 128 : 1), stdout: takeOutput(), stderr: Buffer.concat(err).toString() });
      });
      child.stdin!.on("error", () => {
        /* the child may exit before reading everything; its exit code says what happened */
      });
      child.stdin!.end(options.input ?? "");
    });
  },
};

/** Runs a command that must succeed and print JSON. */
export async function runJson<T>(runner: CommandRunner, command: string, args: readonly string[]): Promise<T> {
  const r = await runner.run(command, args, { largeOutput: true });
  if (r.code !== 0) throw new CommandError(`${command} ${args.join(" ")}`, r, r.stderr.trim() || `exit ${r.code}`);
  try {
    return JSON.parse(r.stdout || "null") as T;
  } catch (err) {
    throw new CommandError(`${command} ${args.join(" ")}`, r, `unparsable output (${(err as Error).message})`);
  }
}
