// routerctl: ask routerd and its daemons what they are doing, over their Unix sockets.
import { runCli, type Command, type Io, type OptionSpec } from "@routerd/cli";
import { DaemonUnavailableError, connectDaemon, daemonSocketPath, type DaemonConnection } from "@routerd/rpc";
import { eventToJson, eventToText, statusToJson, statusToText } from "./format.js";

const COMMON: Record<string, OptionSpec> = {
  "run-dir": { type: "string", default: "/run/routerd", valueName: "DIR", description: "where daemon sockets live" },
  json: { type: "boolean", description: "machine-readable output" },
};

async function withDaemon(v: Record<string, string | boolean | undefined>, io: Io, daemon: string, instance: string, fn: (c: DaemonConnection) => Promise<void>): Promise<number> {
  const socket = daemonSocketPath(String(v["run-dir"]), daemon, instance);
  let conn: DaemonConnection | undefined;
  try {
    conn = await connectDaemon(socket, { connectTimeoutMs: 2000 });
    await fn(conn);
    return 0;
  } catch (err) {
    if (err instanceof CommandFailed) return 1;
    const msg = err instanceof DaemonUnavailableError ? err.message : `${socket}: ${(err as Error).message}`;
    if (v.json) io.out(JSON.stringify({ error: { code: err instanceof DaemonUnavailableError ? err.code : "ERROR", socket, message: msg } }));
    else io.err(`routerctl: ${msg}`);
    return 1;
  } finally {
    conn?.close();
  }
}

const status: Command = {
  name: "status",
  summary: "routerd's own status: per-resource phase, last reconcile, cluster role",
  usage: "status [--json] [--run-dir DIR]",
  options: COMMON,
  run: (v, io) => withDaemon(v, io, "routerd", "core", async (c) => {
    const s = await c.getStatus();
    io.out(v.json ? JSON.stringify(statusToJson(s), null, 2) : statusToText(s));
  }),
};

const health: Command = {
  name: "health",
  summary: "health checks and their states (Unknown, Passing, Healthy, Failing, Unhealthy)",
  usage: "health [--json] [--run-dir DIR]",
  options: COMMON,
  run: (v, io) => withDaemon(v, io, "healthcheck", "default", async (c) => {
    const s = await c.getStatus();
    if (v.json) io.out(JSON.stringify(statusToJson(s).resources, null, 2));
    else for (const r of s.resources) io.out(`${r.name.padEnd(24)} ${r.phase.padEnd(10)} ${r.message}`);
  }),
};

const events: Command = {
  name: "events",
  summary: "recent events of routerd (or of a daemon with --daemon NAME[/INSTANCE]); --follow streams new ones",
  usage: "events [--follow] [--topic PREFIX] [--daemon NAME[/INSTANCE]] [--json] [--run-dir DIR]",
  options: {
    ...COMMON,
    follow: { type: "boolean", short: "f", description: "keep streaming new events" },
    topic: { type: "string", valueName: "PREFIX", description: "only topics starting with PREFIX" },
    daemon: { type: "string", valueName: "NAME", description: "a daemon instead of routerd (e.g. healthcheck, dhcpv4-client/wan)" },
  },
  run(v, io) {
    const [daemon, instance] = v.daemon ? (String(v.daemon).split("/") as [string, string?]) : ["routerd", "core"];
    return withDaemon(v, io, daemon, instance ?? "default", async (c) => {
      const abort = new AbortController();
      const stop = () => abort.abort();
      process.once("SIGINT", stop);
      // Replay what the daemon still holds; without --follow stop once the replay has gone quiet.
      let quiet: NodeJS.Timeout | undefined;
      const arm = () => {
        if (v.follow) return;
        clearTimeout(quiet);
        quiet = setTimeout(stop, 300);
      };
      arm();
      for await (const e of c.watchEvents({ afterSeq: 0, ...(v.topic ? { topicPrefixes: [String(v.topic)] } : {}), signal: abort.signal })) {
        io.out(v.json ? JSON.stringify(eventToJson(e)) : eventToText(e));
        arm();
      }
      clearTimeout(quiet);
      process.off("SIGINT", stop);
    });
  },
};

const daemonCmd: Command = {
  name: "daemon",
  summary: "one daemon: its status, or run one of its commands (renew, release, reload, ...)",
  usage: "daemon NAME[/INSTANCE] (status | command CMD [KEY=VALUE ...]) [--json] [--run-dir DIR]",
  description: "Examples:\n  routerctl daemon healthcheck status\n  routerctl daemon dhcpv4-client/wan command renew\n  routerctl daemon dhcpv6-client/wan command release",
  options: COMMON,
  run(v, io, positionals) {
    const [target, verb, name, ...rest] = positionals;
    const usage = () => {
      io.err("usage: routerctl daemon NAME[/INSTANCE] status | routerctl daemon NAME[/INSTANCE] command CMD [KEY=VALUE ...]");
      return Promise.resolve(1);
    };
    if (!target || (verb !== "status" && verb !== "command") || (verb === "command" && !name)) return usage();
    const args: Record<string, string> = {};
    for (const kv of rest) {
      const i = kv.indexOf("=");
      if (i <= 0) return usage();
      args[kv.slice(0, i)] = kv.slice(i + 1);
    }
    const [daemon, instance] = target.split("/") as [string, string?];
    return withDaemon(v, io, daemon, instance ?? "default", async (c) => {
      if (verb === "status") {
        const s = await c.getStatus();
        io.out(v.json ? JSON.stringify(statusToJson(s), null, 2) : statusToText(s));
        return;
      }
      const r = await c.command(name!, args);
      const details = r.detailsJson ? (JSON.parse(r.detailsJson) as unknown) : undefined;
      if (v.json) io.out(JSON.stringify({ ok: r.ok, message: r.message, ...(details !== undefined ? { details } : {}) }, null, 2));
      else (r.ok ? io.out : io.err)(`${r.ok ? "ok" : "failed"}: ${r.message}`);
      if (!r.ok) throw new CommandFailed(r.message);
    });
  },
};

/** A command the daemon refused: exit 1, the message was already printed. */
class CommandFailed extends Error {}

const SUMMARY = "routerctl: query routerd and its daemons over their Unix sockets (<run-dir>/<daemon>/<instance>.sock).";
const io = { out: (s: string) => process.stdout.write(s + "\n"), err: (s: string) => process.stderr.write(s + "\n") };
runCli("routerctl", SUMMARY, [status, health, events, daemonCmd], process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`routerctl: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
