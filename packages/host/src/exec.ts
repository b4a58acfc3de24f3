// Running host commands. Everything that touches the kernel goes through a CommandRunner, so the
// host port is one seam (tests run the real thing inside namespaces they made).
import { spawn } from "node:child_process";

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CommandRunner {
  run(command: string, args: readonly string[], options?: { input?: string }): Promise<CommandResult>;
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
      const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on("data", (b: Buffer) => out.push(b));
      child.stderr.on("data", (b: Buffer) => err.push(b));
      child.on("error", (e: NodeJS.ErrnoException) => {
        resolve({ code: e.code === "ENOENT" ? 127 : 126, stdout: "", stderr: `${command}: ${e.code === "ENOENT" ? "not installed (not found in PATH)" : e.message}` });
      });
      child.on("close", (code, signal) => {
        resolve({ code: code ?? (signal ? 128 : 1), stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
      });
      child.stdin.on("error", () => {
        /* the child may exit before reading everything; its exit code says what happened */
      });
      child.stdin.end(options.input ?? "");
    });
  },
};

/** Runs a command that must succeed and print JSON. */
export async function runJson<T>(runner: CommandRunner, command: string, args: readonly string[]): Promise<T> {
  const r = await runner.run(command, args);
  if (r.code !== 0) throw new CommandError(`${command} ${args.join(" ")}`, r, r.stderr.trim() || `exit ${r.code}`);
  try {
    return JSON.parse(r.stdout || "null") as T;
  } catch (err) {
    throw new CommandError(`${command} ${args.join(" ")}`, r, `unparsable output (${(err as Error).message})`);
  }
}
