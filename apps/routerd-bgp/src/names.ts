// Where routerd-bgp lives. Must match BGP_DAEMON in @routerd/api.
import { join } from "node:path";
import { DEFAULT_RUN_DIR, daemonSocketPath } from "@routerd/rpc";

export const DAEMON_NAME = "bgp";

/** <runDir>/bgp/<instance>.sock: routerd-bgp's own socket. */
export function bgpSocketPath(runDir: string = DEFAULT_RUN_DIR, instance: string): string {
  return daemonSocketPath(runDir, DAEMON_NAME, instance);
}

/** gobgpd's API socket, pid file and log: beside routerd-bgp's socket and in its state dir. */
export function gobgpdPaths(runDir: string, stateDir: string, instance: string) {
  return {
    socket: join(runDir, DAEMON_NAME, `${instance}.gobgpd.sock`),
    pidFile: join(stateDir, DAEMON_NAME, instance, "gobgpd.pid"),
    logFile: join(stateDir, DAEMON_NAME, instance, "gobgpd.log"),
  };
}
