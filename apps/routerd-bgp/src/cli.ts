// Command line of routerd-bgp. Pure: argv in, options or a message out.
import { parseArgs } from "node:util";
import { DEFAULT_RUN_DIR, DEFAULT_STATE_DIR } from "@routerd/rpc";

export const USAGE = `Usage: routerd-bgp --config FILE --instance NAME [options]

Runs one BGPRouter: starts (or re-attaches to) its own gobgpd, whose gRPC API listens only on a Unix
socket (<run-dir>/bgp/<instance>.gobgpd.sock), applies the router and its BGPPeers through that API as a
diff, and writes the best paths into the kernel FIB (IPv4 and IPv6, ECMP) with routerd's route protocol
(219, "routerd-bgp"). Serves routerd.daemon.v1.Daemon, routerd.bgp.v1.Bgp and grpc.health.v1 on
<run-dir>/bgp/<instance>.sock. SIGHUP or the "reload" command re-reads FILE; unchanged neighbors keep
their sessions.

On stop, gobgpd is stopped (its sessions close) but the FIB routes stay: a restarted routerd-bgp keeps
them until the sessions have relearned them, so forwarding never stops. If routerd-bgp dies without
stopping, gobgpd (and bfdd) keep running and the next routerd-bgp re-attaches to them; when none comes
within --orphan-grace, they stop.

Options:
  --config FILE        {"router": {"name", "spec"}, "peers": [...]} as JSON, written by routerd serve (required)
  --instance NAME      instance name: the BGPRouter's name (required)
  --run-dir DIR        socket directory (default: ${DEFAULT_RUN_DIR})
  --state-dir DIR      state directory (default: ${DEFAULT_STATE_DIR})
  --root DIR           prefix for host files: rt_protos.d entry (default: /)
  --gobgpd PATH        gobgpd binary (default: gobgpd from PATH)
  --keep-gobgpd        leave gobgpd running on stop (a restart re-attaches without a session reset)
  --orphan-grace DUR   gobgpd and bfdd stop when no routerd-bgp has owned them this long (default: 60s)
  --stale-hold DUR     after a gobgpd restart, keep unrelearned FIB routes at most this long (default: 120s)
  --log-level LEVEL    trace, debug, info, warn, error or fatal (default: info)
  -h, --help           show this help
`;

const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

export interface CliOptions {
  configPath: string;
  instance: string;
  runDir: string;
  stateDir: string;
  root: string;
  gobgpd: string;
  keepGobgpd: boolean;
  staleHoldMs: number;
  orphanGraceMs: number;
  logLevel: string;
}

export type CliResult = { kind: "run"; options: CliOptions } | { kind: "help"; text: string } | { kind: "error"; message: string };

const DURATION = /^(\d+)(ms|s|m)$/;

function durationOption(v: string): number | undefined {
  const m = DURATION.exec(v);
  return m ? Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[m[2] as "ms" | "s" | "m"] : undefined;
}

export function parseCli(argv: string[]): CliResult {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        config: { type: "string" },
        instance: { type: "string" },
        "run-dir": { type: "string", default: DEFAULT_RUN_DIR },
        "state-dir": { type: "string", default: DEFAULT_STATE_DIR },
        root: { type: "string", default: "/" },
        gobgpd: { type: "string", default: "gobgpd" },
        "keep-gobgpd": { type: "boolean", default: false },
        "stale-hold": { type: "string", default: "120s" },
        "orphan-grace": { type: "string", default: "60s" },
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
  if (!/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(str("instance"))) return { kind: "error", message: "--instance NAME is required: the BGPRouter's name" };
  if (!LOG_LEVELS.includes(str("log-level"))) return { kind: "error", message: `--log-level must be one of ${LOG_LEVELS.join(", ")}` };
  const staleHoldMs = durationOption(str("stale-hold"));
  if (staleHoldMs === undefined) return { kind: "error", message: "--stale-hold must be a duration like 500ms, 30s or 2m" };
  const orphanGraceMs = durationOption(str("orphan-grace"));
  if (orphanGraceMs === undefined || orphanGraceMs < 1000) return { kind: "error", message: "--orphan-grace must be a duration of at least 1s, like 30s or 2m" };
  return {
    kind: "run",
    options: {
      configPath: str("config"),
      instance: str("instance"),
      runDir: str("run-dir"),
      stateDir: str("state-dir"),
      root: str("root"),
      gobgpd: str("gobgpd"),
      keepGobgpd: values["keep-gobgpd"] === true,
      staleHoldMs,
      orphanGraceMs,
      logLevel: str("log-level"),
    },
  };
}
