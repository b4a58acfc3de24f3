// The daemon's Unix socket file: refuse to start over a live instance, clear a stale one, lock it down.
import { execFile } from "node:child_process";
import { chmod, chown, lstat, mkdir, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { MAX_SOCKET_PATH_BYTES, diagnoseSocket } from "@routerd/rpc";
import { DaemonStartError } from "./errors.js";

const run = promisify(execFile);

export type SocketPreparation = "fresh" | "stale-removed";

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Makes `path` free to bind: creates its directory, removes a socket nobody answers on, and throws
 * DaemonStartError when a live daemon answers there or the path is something other than a socket.
 */
export async function prepareSocketPath(path: string, probeTimeoutMs = 1_000): Promise<SocketPreparation> {
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    throw new DaemonStartError(
      "SOCKET_PATH_TOO_LONG",
      `socket path ${path} is ${Buffer.byteLength(path)} bytes; Unix sockets allow ${MAX_SOCKET_PATH_BYTES}: use a shorter --run-dir`,
      path,
    );
  }
  await mkdir(dirname(path), { recursive: true, mode: 0o755 });
  try {
    const st = await lstat(path);
    if (!st.isSocket()) {
      throw new DaemonStartError("NOT_A_SOCKET", `${path} exists and is not a Unix socket; move it away, it is not ours to delete`, path);
    }
  } catch (err) {
    if (errno(err) === "ENOENT") return "fresh";
    throw err;
  }
  const problem = await diagnoseSocket(path, probeTimeoutMs);
  if (problem === "ECONNREFUSED") {
    await unlink(path).catch((err: unknown) => {
      if (errno(err) !== "ENOENT") throw err;
    });
    return "stale-removed";
  }
  if (problem === "ENOENT") return "fresh"; // removed between lstat and probe
  if (problem === undefined || problem === "ETIMEDOUT") {
    throw new DaemonStartError(
      "ALREADY_RUNNING",
      `another instance already serves ${path}; stop it first (or pick another --instance / --run-dir)`,
      path,
    );
  }
  throw new DaemonStartError("BIND_FAILED", `cannot probe ${path} (${problem}); check its permissions`, path);
}

/** Applies mode and group to the bound socket. */
export async function secureSocket(path: string, mode: number, gid: number | undefined): Promise<void> {
  if (gid !== undefined) await chown(path, -1, gid);
  await chmod(path, mode);
}

/** A numeric gid, or a group name looked up through NSS (`getent group`). */
export async function resolveGroup(group: string | number): Promise<number> {
  if (typeof group === "number" || /^\d+$/.test(group)) return Number(group);
  try {
    const { stdout } = await run("getent", ["group", group]);
    const gid = Number(stdout.split(":")[2]);
    if (Number.isInteger(gid)) return gid;
  } catch {
    // fall through to the error below
  }
  throw new DaemonStartError("SOCKET_GROUP_UNKNOWN", `socket group ${JSON.stringify(group)} does not exist; create it or fix socketGroup`);
}

/**
 * Removes the socket if it is still the one we bound (same inode). libuv already unlinks the path when
 * the listener closes; this covers a forced shutdown that did not get that far.
 */
export async function removeOwnSocket(path: string, ino: number | undefined): Promise<void> {
  try {
    const st = await lstat(path);
    if (ino === undefined || st.ino !== ino || !st.isSocket()) return;
    await unlink(path);
  } catch (err) {
    if (errno(err) !== "ENOENT") throw err;
  }
}
