// Command line of routerd-healthcheck. Pure: argv in, options or a message out.
import { parseArgs } from "node:util";
import { DEFAULT_RUN_DIR, DEFAULT_STATE_DIR } from "@routerd/rpc";

export const USAGE = `Usage: routerd-healthcheck --config FILE [options]

Runs every HealthCheck probe of the router (ICMP, TCP, HTTP(S), DNS) and serves their states on
<run-dir>/healthcheck/<instance>.sock (routerd.daemon.v1.Daemon, routerd.healthcheck.v1.Probes, grpc.health.v1).
SIGHUP or the "reload" command re-reads FILE; unchanged probes keep running and keep their state.

Options:
  --config FILE        probe list as JSON ({ "probes": [...] }), written by routerd serve (required)
  --instance NAME      instance name (default: default)
  --run-dir DIR        socket directory (default: ${DEFAULT_RUN_DIR})
  --state-dir DIR      state directory (default: ${DEFAULT_STATE_DIR})
  --log-level LEVEL    trace, debug, info, warn, error or fatal (default: info)
  -h, --help           show this help
`;

const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

export interface CliOptions {
  configPath: string;
  instance: string;
  runDir: string;
  stateDir: string;
  logLevel: string;
}

export type CliResult = { kind: "run"; options: CliOptions } | { kind: "help"; text: string } | { kind: "error"; message: string };

export function parseCli(argv: string[]): CliResult {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        config: { type: "string" },
        instance: { type: "string", default: "default" },
        "run-dir": { type: "string", default: DEFAULT_RUN_DIR },
        "state-dir": { type: "string", default: DEFAULT_STATE_DIR },
        "log-level": { type: "string", default: "info" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (err) {
    return { kind: "error", message: (err as Error).message };
  }
  if (values.help === true) return { kind: "help", text: USAGE };
  const str = (k: string): string => String(values[k] ?? "");
  if (str("config") === "") return { kind: "error", message: "--config FILE is required" };
  if (!LOG_LEVELS.includes(str("log-level"))) return { kind: "error", message: `--log-level must be one of ${LOG_LEVELS.join(", ")}` };
  return {
    kind: "run",
    options: { configPath: str("config"), instance: str("instance"), runDir: str("run-dir"), stateDir: str("state-dir"), logLevel: str("log-level") },
  };
}
