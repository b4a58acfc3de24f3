// Command line of routerd-pppoe-client. Pure: argv in, options or a message out.
import { DEFAULT_RUN_DIR, DEFAULT_STATE_DIR } from "@routerd/rpc/socket-path";
import { parseDaemonCli, type DaemonCliOptions, type DaemonCliResult } from "@routerd/daemon-kit/cli";

export const USAGE = `Usage: routerd-pppoe-client --config FILE --instance NAME [options]
       routerd-pppoe-client hook --socket SOCKET --event EVENT [--log FILE] -- PPPD_ARGS...   (run by pppd)
       routerd-pppoe-client mpd5-files --config FILE --instance NAME --dir DIR   (FreeBSD: mpd5's files)

Runs one PPPoE session (a PPPoESession resource) with pppd and its rp-pppoe plugin (kernel-mode PPPoE):
pppd reads options and secrets the daemon writes to <state-dir>/pppoe-client/<instance>/ppp (mode 0600),
mounted over /etc/ppp for pppd alone, so the host's /etc/ppp is never used. pppd's ip-up, ip-down,
ipv6-up and ipv6-down hooks report to the daemon over its socket. A session or attempt that ends is
redialled with back-off (persist); stopping the daemon hangs up cleanly.

Socket <run-dir>/pppoe-client/<instance>.sock: routerd.daemon.v1.Daemon (GetStatus lists the session as
one resource whose details are the PPPoESession status fields; events pppoe.session.*; commands
"redial" and "reload"), routerd.pppoe.v1.Sessions (GetSession) and grpc.health.v1.
SIGHUP or "reload" re-reads FILE; a change pppd must see redials.

Options:
  --config FILE        the session as JSON, written by routerd serve (required)
  --instance NAME      the PPPoESession's name (required)
  --run-dir DIR        socket directory (default: ${DEFAULT_RUN_DIR})
  --state-dir DIR      state directory (default: ${DEFAULT_STATE_DIR})
  --log-level LEVEL    trace, debug (adds pppd's packet log), info, warn, error or fatal (default: info)
  -h, --help           show this help

Environment: ROUTERD_PPPD (default /usr/sbin/pppd), ROUTERD_UNSHARE (default /usr/bin/unshare).
Exit codes: 0 stopped cleanly, 1 failure, 2 bad command line or config, 75 another instance is running.
`;

export type CliOptions = DaemonCliOptions;

export type CliResult = DaemonCliResult | { kind: "hook"; argv: string[] } | { kind: "mpd5-files"; argv: string[] };

export function parseCli(argv: string[]): CliResult {
  if (argv[0] === "hook") return { kind: "hook", argv: argv.slice(1) };
  if (argv[0] === "mpd5-files") return { kind: "mpd5-files", argv: argv.slice(1) };
  return parseDaemonCli(argv, { usage: USAGE });
}
