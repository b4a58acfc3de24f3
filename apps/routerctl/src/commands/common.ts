// What routerctl's socket commands share: the run-dir and --json options and one way to reach a daemon.
import type { Io, OptionSpec, OptionValues } from "@routerd/cli";
import { DaemonUnavailableError, connectDaemon, daemonSocketPath, type DaemonConnection } from "@routerd/rpc";

export const SOCKET_OPTIONS: Record<string, OptionSpec> = {
  "run-dir": { type: "string", default: "/run/routerd", valueName: "DIR", description: "where daemon sockets live", complete: "dir" },
  json: { type: "boolean", description: "machine-readable output" },
};

/** A command the daemon refused: exit 1, the message was already printed. */
export class CommandFailed extends Error {}

/** Connects to `<run-dir>/<daemon>/<instance>.sock`, runs `fn`, and turns an unreachable daemon into exit 1 with a message. */
export async function withDaemon(v: OptionValues, io: Io, daemon: string, instance: string, fn: (c: DaemonConnection) => Promise<void>): Promise<number> {
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
