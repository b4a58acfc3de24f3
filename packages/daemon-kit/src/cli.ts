// The part of a daemon's entry point every config-file daemon shares, kept light (no gRPC: pppd's hook path
// loads it): the common command line (--config, --instance, --run-dir, --state-dir, --log-level, -h) with
// the daemon's own options beside it, the config error every daemon reports, reading a JSON config file,
// and exiting with main()'s code. Import it as "@routerd/daemon-kit/cli".
import { readFile } from "node:fs/promises";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { DEFAULT_RUN_DIR, DEFAULT_STATE_DIR } from "@routerd/rpc/socket-path";

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

/** What every daemon's command line gives. */
export interface DaemonCliOptions {
  configPath: string;
  instance: string;
  runDir: string;
  stateDir: string;
  logLevel: string;
}

export type DaemonCliResult<O extends DaemonCliOptions = DaemonCliOptions> =
  | { kind: "run"; options: O }
  | { kind: "help"; text: string }
  | { kind: "error"; message: string };

type Values = Record<string, string | boolean | undefined>;

export interface DaemonCliSpec<Extra extends object> {
  usage: string;
  /** --instance: its default, or required (undefined) with `instanceMissing` as the message. */
  instanceDefault?: string;
  instanceMissing?: string;
  /** When set, --instance must match it (else `instanceMissing`). */
  instancePattern?: RegExp;
  /** The daemon's own options (parseArgs form) and how they become its option fields, or an error message. */
  options?: NonNullable<ParseArgsConfig["options"]>;
  extra?: (values: Values) => Extra | string;
}

/** Parses argv (pure): options, the help text, or a message for stderr. */
export function parseDaemonCli<Extra extends object = object>(argv: string[], spec: DaemonCliSpec<Extra>): DaemonCliResult<DaemonCliOptions & Extra> {
  let values: Values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        config: { type: "string" },
        instance: spec.instanceDefault !== undefined ? { type: "string", default: spec.instanceDefault } : { type: "string" },
        "run-dir": { type: "string", default: DEFAULT_RUN_DIR },
        "state-dir": { type: "string", default: DEFAULT_STATE_DIR },
        ...spec.options,
        "log-level": { type: "string", default: "info" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (err) {
    return { kind: "error", message: (err as Error).message };
  }
  if (values.help === true) return { kind: "help", text: spec.usage };
  const str = (k: string): string => String(values[k] ?? "");
  if (str("config") === "") return { kind: "error", message: "--config FILE is required" };
  const instance = str("instance");
  if (instance === "" || (spec.instancePattern !== undefined && !spec.instancePattern.test(instance))) {
    return { kind: "error", message: spec.instanceMissing ?? "--instance NAME is required" };
  }
  if (!LOG_LEVELS.includes(str("log-level"))) return { kind: "error", message: `--log-level must be one of ${LOG_LEVELS.join(", ")}` };
  const extra = spec.extra?.(values) ?? ({} as Extra);
  if (typeof extra === "string") return { kind: "error", message: extra };
  return {
    kind: "run",
    options: { configPath: str("config"), instance, runDir: str("run-dir"), stateDir: str("state-dir"), logLevel: str("log-level"), ...extra },
  };
}

/** A config file the daemon cannot use: every problem found, with the file (or "config") it is about. */
export class ConfigError extends Error {
  constructor(
    readonly problems: string[],
    readonly source = "config",
  ) {
    super(`${source}: ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
  }
}

/** JSON text → `parse(document, source)`; a syntax error is a ConfigError too. */
export function parseJsonConfigText<T>(text: string, source: string, parse: (doc: unknown, source: string) => T): T {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new ConfigError([`not valid JSON: ${(err as Error).message}`], source);
  }
  return parse(doc, source);
}

/** Reads and parses a JSON config file; a file that cannot be read is a ConfigError about that path. */
export async function loadJsonConfig<T>(path: string, parse: (doc: unknown, source: string) => T): Promise<T> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new ConfigError([`cannot read: ${(err as Error).message}`], path);
  }
  return parseJsonConfigText(text, path, parse);
}

/** After a stop, anything still pending (a name lookup, a child's pipe) must not keep the process alive. */
const EXIT_GRACE_MS = 2000;

/** Runs `main` and exits with its code (after EXIT_GRACE_MS at the latest); a throw prints the stack, exit 1. */
export function exitWith(program: string, main: Promise<number>): void {
  main.then(
    (code) => {
      process.exitCode = code;
      setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
    },
    (err: unknown) => {
      process.stderr.write(`${program}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
