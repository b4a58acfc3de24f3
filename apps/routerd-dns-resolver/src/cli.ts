// Command line of routerd-dns-resolver. Pure: argv in, options or a message out.
import { parseArgs } from "node:util";
import { DEFAULT_RUN_DIR, DEFAULT_STATE_DIR } from "@routerd/rpc";

export const USAGE = `Usage: routerd-dns-resolver --config FILE --instance NAME [options]

The LAN's DNS resolver for one DNSResolver: UDP and TCP on every listen address, local zones (with DHCP
client names from the managed dnsmasq's leases), forwarding by longest suffix to UDP, TCP, DNS-over-TLS
and DNS-over-HTTPS upstreams with health checks and failover, a cache (negative answers, prefetch, stale
answers while upstreams fail) and DNSSEC validation. Serves its state on
<run-dir>/dns-resolver/<instance>.sock (routerd.daemon.v1.Daemon, routerd.dns.v1.Resolver, grpc.health.v1).
SIGHUP or the "reload" command re-reads FILE without closing sockets that stay or dropping the cache.

Options:
  --config FILE        resolver config as JSON, written by routerd serve (required)
  --instance NAME      the DNSResolver's name (required)
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
        instance: { type: "string" },
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
  if (str("instance") === "") return { kind: "error", message: "--instance NAME is required (the DNSResolver's name)" };
  if (!LOG_LEVELS.includes(str("log-level"))) return { kind: "error", message: `--log-level must be one of ${LOG_LEVELS.join(", ")}` };
  return {
    kind: "run",
    options: { configPath: str("config"), instance: str("instance"), runDir: str("run-dir"), stateDir: str("state-dir"), logLevel: str("log-level") },
  };
}
