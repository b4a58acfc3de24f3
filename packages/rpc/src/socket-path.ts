// Where daemon sockets live. The daemon kit binds here and clients (routerd serve, routerctl) dial here,
// so both sides share this one function.
import { join, resolve } from "node:path";

export const DEFAULT_RUN_DIR = "/run/routerd";
export const DEFAULT_STATE_DIR = "/var/lib/routerd";

// A name becomes one path segment: no separators, no dot-only names, short enough for sun_path.
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

/** Unix socket paths are limited to 107 bytes plus a NUL (sun_path on Linux). */
export const MAX_SOCKET_PATH_BYTES = 107;

export function isValidDaemonName(name: string): boolean {
  return NAME_PATTERN.test(name);
}

/** Throws a RangeError naming the field when `value` cannot be a daemon or instance name. */
export function assertDaemonName(field: "daemon" | "instance", value: string): void {
  if (!isValidDaemonName(value)) {
    throw new RangeError(
      `invalid ${field} name ${JSON.stringify(value)}: use 1-64 characters from A-Z a-z 0-9 _ . @ - starting with a letter or digit`,
    );
  }
}

/** `<runDir>/<daemon>/<instance>.sock`, absolute. */
export function daemonSocketPath(runDir: string, daemon: string, instance: string): string {
  assertDaemonName("daemon", daemon);
  assertDaemonName("instance", instance);
  return join(resolve(runDir), daemon, `${instance}.sock`);
}

/** `<stateDir>/<daemon>/<instance>`, absolute: where a daemon keeps state.json and events.jsonl. */
export function daemonStateDir(stateDir: string, daemon: string, instance: string): string {
  assertDaemonName("daemon", daemon);
  assertDaemonName("instance", instance);
  return join(resolve(stateDir), daemon, instance);
}

/** The gRPC target for a Unix socket (grpc-js accepts `unix:/abs/path`). */
export function unixTarget(socketPath: string): string {
  return `unix:${resolve(socketPath)}`;
}
