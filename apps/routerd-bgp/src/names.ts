// Where routerd-bgp lives. Must match BGP_DAEMON in @routerd/api.
import { join } from "node:path";
import { companionsDir } from "@routerd/daemon-kit";
import { DEFAULT_RUN_DIR, daemonSocketPath } from "@routerd/rpc";

export const DAEMON_NAME = "bgp";
/** The word the companions' keepers look for in routerd-bgp's cmdline. */
export const OWNER_MATCH = "routerd-bgp";

/** <runDir>/bgp/<instance>.sock: routerd-bgp's own socket. */
export function bgpSocketPath(runDir: string = DEFAULT_RUN_DIR, instance: string): string {
  return daemonSocketPath(runDir, DAEMON_NAME, instance);
}

/** routerd-bgp's state dir for one router: <stateDir>/bgp/<instance>. */
export const bgpStateDir = (stateDir: string, instance: string): string => join(stateDir, DAEMON_NAME, instance);

/** gobgpd's API socket, record dir (companions/gobgpd.pid) and log: beside routerd-bgp's socket and in its state dir. */
export function gobgpdPaths(runDir: string, stateDir: string, instance: string) {
  return {
    socket: join(runDir, DAEMON_NAME, `${instance}.gobgpd.sock`),
    recordDir: companionsDir(bgpStateDir(stateDir, instance)),
    logFile: join(bgpStateDir(stateDir, instance), "gobgpd.log"),
  };
}

/** bfdd's config (rendered, owned), its sockets (vty, control, zebra's unused one) and log. */
export function bfddPaths(runDir: string, stateDir: string, instance: string) {
  const state = bgpStateDir(stateDir, instance);
  const run = join(runDir, DAEMON_NAME, `${instance}.bfdd`);
  return {
    config: join(state, "bfdd.conf"),
    recordDir: companionsDir(state),
    logFile: join(state, "bfdd.log"),
    runDir: run,
    vtyDir: run,
    control: join(run, "bfdd.sock"),
    zebra: join(run, "zserv.api"),
    pidFile: join(run, "bfdd.pid"),
  };
}
