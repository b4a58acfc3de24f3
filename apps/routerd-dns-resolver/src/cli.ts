// Command line of routerd-dns-resolver. Pure: argv in, options or a message out.
import { DEFAULT_RUN_DIR, DEFAULT_STATE_DIR } from "@routerd/rpc";
import { parseDaemonCli, type DaemonCliOptions, type DaemonCliResult } from "@routerd/daemon-kit/cli";

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

export type CliOptions = DaemonCliOptions;
export type CliResult = DaemonCliResult;

export const parseCli = (argv: string[]): CliResult =>
  parseDaemonCli(argv, { usage: USAGE, instanceMissing: "--instance NAME is required (the DNSResolver's name)" });
