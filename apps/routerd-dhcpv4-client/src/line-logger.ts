// The engine's logger: the few pino methods it uses, so pino itself (about 45 ms to load) can wait until
// the first DISCOVER is out. lineLogger() writes pino's JSON line format synchronously to a file
// descriptor; a pino Logger satisfies EngineLogger as it is.
import { writeSync } from "node:fs";
import { hostname } from "node:os";

type LogMethod = (obj: Record<string, unknown>, msg: string) => void;

export interface EngineLogger {
  child(bindings: Record<string, unknown>): EngineLogger;
  trace: LogMethod;
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
  fatal: LogMethod;
}

/** pino's numeric levels. */
export const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;
export type LevelName = keyof typeof LEVELS;

export function isLevelName(s: string): s is LevelName {
  return Object.hasOwn(LEVELS, s);
}

export interface LineLoggerOptions {
  name: string;
  level: LevelName;
  /** 1 (stdout, like the daemons' pino) or 2 (stderr). */
  fd: number;
  now?: () => number;
  write?: (line: string) => void;
}

function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { type: value.name, message: value.message, stack: value.stack };
  if (typeof value === "bigint") return value.toString();
  return value;
}

/** One JSON object per line: level, time, pid, hostname, name, bindings, fields, msg (pino's layout). */
export function lineLogger(opts: LineLoggerOptions): EngineLogger {
  const threshold = LEVELS[opts.level];
  const now = opts.now ?? Date.now;
  const write = opts.write ?? ((line: string) => writeSync(opts.fd, line));
  const base = { pid: process.pid, hostname: hostname(), name: opts.name };
  const make = (bindings: Record<string, unknown>): EngineLogger => {
    const at =
      (level: number): LogMethod =>
      (obj, msg) => {
        if (level < threshold) return;
        try {
          write(JSON.stringify({ level, time: now(), ...base, ...bindings, ...obj, msg }, replacer) + "\n");
        } catch {
          /* a full pipe or a closed descriptor must not take the client down */
        }
      };
    return {
      child: (more) => make({ ...bindings, ...more }),
      trace: at(LEVELS.trace),
      debug: at(LEVELS.debug),
      info: at(LEVELS.info),
      warn: at(LEVELS.warn),
      error: at(LEVELS.error),
      fatal: at(LEVELS.fatal),
    };
  };
  return make({});
}
