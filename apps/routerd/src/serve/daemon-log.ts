// <state-dir>/<daemon>/<instance>/daemon.log: a supervised daemon's stdout and stderr under the built-in
// supervisor. The daemon holds it open for appending and cannot be told to reopen it, so it is bounded the way
// logrotate's copytruncate does it: past the limit it is copied to daemon.log.1 (replacing the older copy) and
// emptied. Lines written between the copy and the truncation are lost; under systemd, journald keeps the logs.
import { copyFileSync, statSync, truncateSync } from "node:fs";

export const DAEMON_LOG_MAX_BYTES = 1024 * 1024;

/** Copies and empties the log once it is larger than `maxBytes`; true when it did. */
export function capDaemonLog(path: string, maxBytes = DAEMON_LOG_MAX_BYTES): boolean {
  const size = statSync(path, { throwIfNoEntry: false })?.size;
  if (size === undefined || size <= maxBytes) return false;
  copyFileSync(path, `${path}.1`);
  truncateSync(path, 0);
  return true;
}
