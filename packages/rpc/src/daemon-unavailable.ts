// Why a daemon socket cannot be reached, found by looking at the path and trying one connect.
import { connect } from "node:net";
import { stat } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";

export type SocketProblemCode = "ENOENT" | "ECONNREFUSED" | "EACCES" | "ENOTSOCK" | "ETIMEDOUT";

// What each problem means for the operator and what to do next.
const ADVICE: Record<SocketProblemCode, (path: string, unit: string) => string> = {
  ENOENT: (path, unit) =>
    `no daemon socket at ${path}: ${unit} is not running (or was started with another --run-dir); start it, e.g. systemctl start ${unit}`,
  ECONNREFUSED: (path, unit) =>
    `${path} refuses connections: ${unit} has exited and left a stale socket; restart it (it removes the stale socket)`,
  EACCES: (path) => `permission denied on ${path}: run as root or as a member of the socket's group`,
  ENOTSOCK: (path) => `${path} exists but is not a Unix socket; check --run-dir`,
  ETIMEDOUT: (path, unit) => `${path} accepts connections but ${unit} did not answer gRPC in time; it may be starting or stuck`,
};

/** `<runDir>/<daemon>/<instance>.sock` names the systemd unit `routerd-<daemon>@<instance>`; routerd's own is routerd.service. */
function unitFor(socketPath: string): string {
  const daemon = basename(dirname(socketPath));
  const instance = basename(socketPath).replace(/\.sock$/, "");
  return daemon === "routerd" ? "routerd" : `routerd-${daemon}@${instance}`;
}

/** A daemon's socket is missing, refusing, not a socket, forbidden, or silent. */
export class DaemonUnavailableError extends Error {
  readonly code: SocketProblemCode;
  readonly socketPath: string;

  constructor(code: SocketProblemCode, socketPath: string, options?: { cause?: unknown }) {
    const path = resolve(socketPath);
    super(ADVICE[code](path, unitFor(path)), options);
    this.name = "DaemonUnavailableError";
    this.code = code;
    this.socketPath = path;
  }
}

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

const CONNECT_ERRORS: Record<string, SocketProblemCode> = {
  ENOENT: "ENOENT",
  ECONNREFUSED: "ECONNREFUSED",
  EACCES: "EACCES",
  EPERM: "EACCES",
  ENOTSOCK: "ENOTSOCK",
};

function tryConnect(path: string, timeoutMs: number): Promise<SocketProblemCode | undefined> {
  return new Promise((done) => {
    const sock = connect({ path });
    const finish = (code: SocketProblemCode | undefined): void => {
      clearTimeout(timer);
      sock.destroy();
      done(code);
    };
    const timer = setTimeout(() => finish("ETIMEDOUT"), timeoutMs);
    sock.once("connect", () => finish(undefined));
    sock.once("error", (err) => finish(CONNECT_ERRORS[errnoOf(err) ?? ""] ?? "ECONNREFUSED"));
  });
}

/**
 * Looks at a socket path: undefined when something accepts connections on it, otherwise the problem.
 * Errors other than the listed ones (e.g. EIO) are rethrown.
 */
export async function diagnoseSocket(socketPath: string, timeoutMs = 1_000): Promise<SocketProblemCode | undefined> {
  const path = resolve(socketPath);
  try {
    const st = await stat(path);
    if (!st.isSocket()) return "ENOTSOCK";
  } catch (err) {
    const code = CONNECT_ERRORS[errnoOf(err) ?? ""];
    if (code === undefined) throw err;
    return code;
  }
  return tryConnect(path, timeoutMs);
}
