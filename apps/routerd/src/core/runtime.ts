// Reads what the daemons know (DHCPv4 leases, delegated prefixes) over their sockets. A daemon that does not
// answer gives "unknown", which keeps existing artifacts; only a daemon that says "no lease" removes them.
import { readlinkSync } from "node:fs";
import { join } from "node:path";
import { DHCPV4_CLIENT_DAEMON, VRRP_DAEMON, runtimeFrom, type ConfigView, type DelegatedPrefix, type Dhcpv4Lease, type LinkFacts, type RuntimeFact, type RuntimeView } from "@routerd/api";
import { observeLinkFacts, type HostContext } from "@routerd/host";
import type { DaemonConnection } from "@routerd/rpc";

async function resourceState(runDir: string, daemon: string, instance: string): Promise<{ phase: string; details?: unknown } | { unknown: string }> {
  let conn: DaemonConnection | undefined;
  try {
    // Loaded on demand: gRPC costs ~50 ms of start-up that configs without daemons should not pay.
    const { connectDaemon, daemonSocketPath } = await import("@routerd/rpc");
    conn = await connectDaemon(daemonSocketPath(runDir, daemon, instance), { connectTimeoutMs: 500, callTimeoutMs: 1500 });
    const status = await conn.getStatus();
    const r = status.resources.find((x) => x.name === instance) ?? status.resources[0];
    if (!r) return { phase: "None" };
    return { phase: r.phase, ...(r.detailsJson ? { details: JSON.parse(r.detailsJson) as unknown } : {}) };
  } catch (err) {
    return { unknown: (err as Error).message.split("\n")[0] ?? "daemon not answering" };
  } finally {
    conn?.close();
  }
}

/** Phases in which a daemon holds a usable lease or prefix. */
const HOLDING = new Set(["Bound", "Renewing", "Rebinding"]);

function fact<T>(s: { phase: string; details?: unknown } | { unknown: string }, isValue: (x: unknown) => x is T): RuntimeFact<T> {
  if ("unknown" in s) return { state: "unknown", reason: s.unknown };
  if (HOLDING.has(s.phase) && isValue(s.details)) return { state: "present", value: s.details, phase: s.phase };
  const last = typeof s.details === "object" && s.details !== null && !Array.isArray(s.details) ? { last: s.details as Partial<T> } : {};
  return { state: "absent", reason: `phase ${s.phase}`, phase: s.phase, ...last };
}

const isLease = (x: unknown): x is Dhcpv4Lease => typeof x === "object" && x !== null && typeof (x as Dhcpv4Lease).address === "string" && typeof (x as Dhcpv4Lease).prefixLength === "number";
const isPrefix = (x: unknown): x is DelegatedPrefix => typeof x === "object" && x !== null && typeof (x as DelegatedPrefix).prefix === "string" && typeof (x as DelegatedPrefix).prefixLength === "number";

/** The host's links, or undefined when they cannot be read (an Interface's status is then unknown). */
async function readLinks(host: HostContext): Promise<Map<string, LinkFacts> | undefined> {
  try {
    return new Map((await observeLinkFacts(host)).map((l) => [l.ifname, l]));
  } catch {
    return undefined;
  }
}

/** keepalived's notify commands point <run-dir>/keepalived/<name> at the role's name (see the renderer). */
export function vrrpRole(runDir: string, name: string): RuntimeFact<string> {
  try {
    return { state: "present", value: readlinkSync(join(runDir, VRRP_DAEMON.daemon, name)) };
  } catch {
    return { state: "unknown", reason: "keepalived has not reported a role yet" };
  }
}

/**
 * What the daemons know, and with `links` the host's links (only when something reads an Interface's status:
 * a `*From` or `when.state`, or a status report).
 */
export async function readRuntime(view: ConfigView, runDir: string, opts: { links?: HostContext } = {}): Promise<RuntimeView> {
  const dhcpv4 = new Map<string, RuntimeFact<Dhcpv4Lease>>();
  const prefixes = new Map<string, RuntimeFact<DelegatedPrefix>>();
  let links: Map<string, LinkFacts> | undefined;
  await Promise.all([
    ...view.all("DHCPv4Client").map(async (r) => dhcpv4.set(r.metadata.name, fact(await resourceState(runDir, DHCPV4_CLIENT_DAEMON, r.metadata.name), isLease))),
    ...view.all("DHCPv6PrefixDelegation").map(async (r) => prefixes.set(r.metadata.name, fact(await resourceState(runDir, "dhcpv6-client", r.metadata.name), isPrefix))),
    ...(opts.links ? [readLinks(opts.links).then((l) => (links = l))] : []),
  ]);
  const vrrpRoles = new Map(view.all<{ mode?: string }>("VirtualAddress").filter((r) => r.spec.mode === "vrrp").map((r) => [r.metadata.name, vrrpRole(runDir, r.metadata.name)] as const));
  return runtimeFrom({ dhcpv4, prefixes, vrrpRoles, ...(links ? { links } : {}) });
}

/** Does anything in the config read a status field of an Interface (which comes from the host's links)? */
export function readsInterfaceStatus(config: { resources: readonly { sources?: readonly { resource: string }[]; when?: unknown }[] }): boolean {
  return config.resources.some((r) => r.sources?.some((s) => s.resource.startsWith("Interface/")) || (r.when !== undefined && JSON.stringify(r.when).includes("Interface/")));
}
