// Where routerd-healthcheck lives. Must match HEALTHCHECK_DAEMON in @routerd/api (names.test.ts checks).
import { DEFAULT_RUN_DIR, daemonSocketPath } from "@routerd/rpc";

export const DAEMON_NAME = "healthcheck";
export const DEFAULT_INSTANCE = "default";

/** <runDir>/healthcheck/<instance>.sock */
export function healthcheckSocketPath(runDir: string = DEFAULT_RUN_DIR, instance: string = DEFAULT_INSTANCE): string {
  return daemonSocketPath(runDir, DAEMON_NAME, instance);
}
