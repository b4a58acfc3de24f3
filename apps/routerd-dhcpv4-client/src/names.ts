// Where the daemon form lives. Must match DHCPV4_CLIENT_DAEMON in @routerd/api (names.test.ts checks) and
// the layout of @routerd/rpc's daemonSocketPath/daemonStateDir, computed here without loading gRPC.
import { join, resolve } from "node:path";

export const DAEMON_NAME = "dhcpv4-client";

/** The daemon kit's instance names: one path segment, no dot-only names. */
export const INSTANCE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

export function isInstanceName(name: string): boolean {
  return INSTANCE_NAME.test(name);
}

/** <runDir>/dhcpv4-client/<instance>.sock */
export function socketPathOf(runDir: string, instance: string): string {
  return join(resolve(runDir), DAEMON_NAME, `${instance}.sock`);
}

/** <stateDir>/dhcpv4-client/<instance>: the kit's state.json and events.jsonl, and the engine's lease.json. */
export function stateDirOf(stateDir: string, instance: string): string {
  return join(resolve(stateDir), DAEMON_NAME, instance);
}
