// Helpers for daemon tests: a stale socket left by a killed process, and a logger that records lines.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { pino, type Logger } from "pino";

/** Leaves a socket file at `path` that nobody listens on, the way kill -9 does. */
export async function createStaleSocket(path: string): Promise<void> {
  const script = `require("node:net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"));`;
  const child = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
  const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
  if (signal !== "SIGKILL") throw new Error(`stale socket helper exited with code ${code}, signal ${signal}`);
}

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A pino logger whose JSON lines are kept in `lines`. */
export function recordingLogger(level = "debug"): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level }, { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) });
  return { logger, lines };
}
