// Where routerd-dns-resolver lives. Must match DNS_RESOLVER_DAEMON in @routerd/api (names.test.ts checks).
import { DEFAULT_RUN_DIR, daemonSocketPath } from "@routerd/rpc";

export const DAEMON_NAME = "dns-resolver";

/** <runDir>/dns-resolver/<instance>.sock; the instance is the DNSResolver's name. */
export function dnsResolverSocketPath(instance: string, runDir: string = DEFAULT_RUN_DIR): string {
  return daemonSocketPath(runDir, DAEMON_NAME, instance);
}
