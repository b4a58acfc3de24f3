// Command line of routerd-bgp. Pure: argv in, options or a message out.
import { DEFAULT_RUN_DIR, DEFAULT_STATE_DIR } from "@routerd/rpc";
import { parseDaemonCli, type DaemonCliOptions, type DaemonCliResult } from "@routerd/daemon-kit/cli";

export const USAGE = `Usage: routerd-bgp --config FILE --instance NAME [options]

Runs one BGPRouter: starts (or re-attaches to) its own gobgpd, whose gRPC API listens only on a Unix
socket (<run-dir>/bgp/<instance>.gobgpd.sock), applies the router and its BGPPeers through that API as a
diff, and writes the best paths into the kernel FIB (IPv4 and IPv6, ECMP) with routerd's route protocol
(219, "routerd-bgp"). Serves routerd.daemon.v1.Daemon, routerd.bgp.v1.Bgp and grpc.health.v1 on
<run-dir>/bgp/<instance>.sock. SIGHUP or the "reload" command re-reads FILE; unchanged neighbors keep
their sessions.

On stop, gobgpd is stopped (its sessions close) but the FIB routes stay: a restarted routerd-bgp keeps
them until the sessions have relearned them, so forwarding never stops. gobgpd and bfdd die with
routerd-bgp however it ends (SIGKILL too: they run under setpriv --pdeathsig KILL when util-linux's
setpriv is on the PATH), and a starting routerd-bgp stops one an earlier routerd-bgp left running
(recorded in <state-dir>/bgp/<instance>/companions/, checked against /proc/<pid>/cmdline) before
starting its own. With --keep-gobgpd they outlive routerd-bgp on purpose and the next routerd-bgp
re-attaches to them without a session reset; when none comes within --orphan-grace, they stop.

Options:
  --config FILE        {"router": {"name", "spec"}, "peers": [...]} as JSON, written by routerd serve (required)
  --instance NAME      instance name: the BGPRouter's name (required)
  --run-dir DIR        socket directory (default: ${DEFAULT_RUN_DIR})
  --state-dir DIR      state directory (default: ${DEFAULT_STATE_DIR})
  --root DIR           prefix for host files: rt_protos.d entry (default: /)
  --gobgpd PATH        gobgpd binary (default: gobgpd from PATH)
  --keep-gobgpd        gobgpd and bfdd outlive routerd-bgp (stop or crash); the next one re-attaches without a session reset
  --orphan-grace DUR   gobgpd and bfdd stop when no routerd-bgp has owned them this long (default: 60s)
  --stale-hold DUR     after a gobgpd restart, keep unrelearned FIB routes at most this long (default: 120s)
  --log-level LEVEL    trace, debug, info, warn, error or fatal (default: info)
  -h, --help           show this help

Environment:
  ROUTERD_BGP_FIB_WRITER=netlink|ip   how FIB routes are written: netlink (the default: a native addon sends each
                       chunk's route messages in one sendmsg) or ip (one long-lived \`ip -force -batch -\`). Without
                       the addon (not built, not Linux) routerd-bgp uses ip and logs why.
`;

export interface CliOptions extends DaemonCliOptions {
  root: string;
  gobgpd: string;
  keepGobgpd: boolean;
  staleHoldMs: number;
  orphanGraceMs: number;
}

export type CliResult = DaemonCliResult<CliOptions>;

const DURATION = /^(\d+)(ms|s|m)$/;

function durationOption(v: string): number | undefined {
  const m = DURATION.exec(v);
  return m ? Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[m[2] as "ms" | "s" | "m"] : undefined;
}

export function parseCli(argv: string[]): CliResult {
  return parseDaemonCli(argv, {
    usage: USAGE,
    instanceMissing: "--instance NAME is required: the BGPRouter's name",
    instancePattern: /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/,
    options: {
      root: { type: "string", default: "/" },
      gobgpd: { type: "string", default: "gobgpd" },
      "keep-gobgpd": { type: "boolean", default: false },
      "stale-hold": { type: "string", default: "120s" },
      "orphan-grace": { type: "string", default: "60s" },
    },
    extra: (values) => {
      const staleHoldMs = durationOption(String(values["stale-hold"]));
      if (staleHoldMs === undefined) return "--stale-hold must be a duration like 500ms, 30s or 2m";
      const orphanGraceMs = durationOption(String(values["orphan-grace"]));
      if (orphanGraceMs === undefined || orphanGraceMs < 1000) return "--orphan-grace must be a duration of at least 1s, like 30s or 2m";
      return { root: String(values.root), gobgpd: String(values.gobgpd), keepGobgpd: values["keep-gobgpd"] === true, staleHoldMs, orphanGraceMs };
    },
  });
}
