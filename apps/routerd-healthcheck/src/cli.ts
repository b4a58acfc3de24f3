// Command line of routerd-healthcheck. Pure: argv in, options or a message out.
import { DEFAULT_RUN_DIR, DEFAULT_STATE_DIR } from "@routerd/rpc";
import { parseDaemonCli, type DaemonCliOptions, type DaemonCliResult } from "@routerd/daemon-kit/cli";

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

export type CliOptions = DaemonCliOptions;
export type CliResult = DaemonCliResult;

export const parseCli = (argv: string[]): CliResult => parseDaemonCli(argv, { usage: USAGE, instanceDefault: "default" });
