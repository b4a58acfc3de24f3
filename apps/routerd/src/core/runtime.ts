// Reads what the daemons know (DHCPv4 leases, delegated prefixes, PPPoE sessions, VRRP roles), WireGuard devices, and resolves DS-Lite AFTR names. A daemon that does not answer gives "unknown", which keeps existing
// artifacts; only a daemon that says "no lease" removes them.
import { Resolver } from "node:dns/promises";
import { readlinkSync } from "node:fs";
import { join } from "node:path";
import {
  BGP_DAEMON,
  DHCPV4_CLIENT_DAEMON,
  PPPOE_CLIENT_DAEMON,
  VRRP_DAEMON,
  makeStatusView,
  runtimeFrom,
  type ConfigView,
  type DelegatedPrefix,
  type Dhcpv4Lease,
  type LinkFacts,
  type BgpDaemonFacts,
  type DSLiteTunnelSpec,
  type PppoeSession,
  type RouterConfig,
  type RuntimeFact,
  type RuntimeView,
  type WireGuardFacts,
} from "@routerd/api";
import { observeLinkFacts, observeWireGuardDevices, type HostContext, type ObservationCache, type WireGuardDeviceState } from "@routerd/host";
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

/** What a BGPRouter's routerd-bgp reports: its details and every resource it publishes (BGPPeers, BFDs). */
async function bgpFacts(runDir: string, router: string): Promise<RuntimeFact<BgpDaemonFacts>> {
  let conn: DaemonConnection | undefined;
  try {
    const { connectDaemon, daemonSocketPath } = await import("@routerd/rpc");
    conn = await connectDaemon(daemonSocketPath(runDir, BGP_DAEMON, router), { connectTimeoutMs: 500, callTimeoutMs: 1500 });
    const status = await conn.getStatus();
    const json = (s: string): Record<string, unknown> => (s ? (JSON.parse(s) as Record<string, unknown>) : {});
    const resources = Object.fromEntries(status.resources.map((r) => [r.name, { phase: r.phase, details: json(r.detailsJson) }]));
    return { state: "present", value: { details: json(status.detailsJson), resources } };
  } catch (err) {
    return { state: "unknown", reason: (err as Error).message.split("\n")[0] ?? "routerd-bgp not answering" };
  } finally {
    conn?.close();
  }
}

/** Phases in which a daemon holds a usable lease, prefix or session. */
const HOLDING = new Set(["Bound", "Renewing", "Rebinding", "Up"]);

function fact<T>(s: { phase: string; details?: unknown } | { unknown: string }, isValue: (x: unknown) => x is T): RuntimeFact<T> {
  if ("unknown" in s) return { state: "unknown", reason: s.unknown };
  if (HOLDING.has(s.phase) && isValue(s.details)) return { state: "present", value: s.details, phase: s.phase };
  const last = typeof s.details === "object" && s.details !== null && !Array.isArray(s.details) ? { last: s.details as Partial<T> } : {};
  return { state: "absent", reason: `phase ${s.phase}`, phase: s.phase, ...last };
}

const isLease = (x: unknown): x is Dhcpv4Lease => typeof x === "object" && x !== null && typeof (x as Dhcpv4Lease).address === "string" && typeof (x as Dhcpv4Lease).prefixLength === "number";
const isSession = (x: unknown): x is PppoeSession => typeof x === "object" && x !== null && typeof (x as PppoeSession).device === "string";
const isPrefix = (x: unknown): x is DelegatedPrefix => typeof x === "object" && x !== null && typeof (x as DelegatedPrefix).prefix === "string" && typeof (x as DelegatedPrefix).prefixLength === "number";

/** The daemon leaves out dnsServers while it has none. */
function sessionDefaults(f: RuntimeFact<PppoeSession>): RuntimeFact<PppoeSession> {
  return f.state === "present" ? { ...f, value: { ...f.value, dnsServers: f.value.dnsServers ?? [] } } : f;
}

/**
 * The host's links, or undefined when they cannot be read (an Interface's status is then unknown). With a
 * cache (routerd serve's resident inventory), the last reading while no link or address changed.
 */
export async function readLinks(host: HostContext, cache?: ObservationCache): Promise<Map<string, LinkFacts> | undefined> {
  try {
    const facts = cache ? await cache.read("link facts", ["link", "ipv4.address", "ipv6.address"], () => observeLinkFacts(host)) : await observeLinkFacts(host);
    return new Map(facts.map((l) => [l.ifname, l]));
  } catch {
    return undefined;
  }
}

/** The namespace's WireGuard devices for status (without fingerprints: status shows no key material at all). */
export async function readWireGuard(host: HostContext): Promise<Map<string, WireGuardFacts> | Error> {
  try {
    return new Map((await observeWireGuardDevices(host)).map((d) => [d.ifname, wireGuardFacts(d)]));
  } catch (err) {
    return new Error(`WireGuard devices could not be read: ${(err as Error).message.split("\n")[0]}`);
  }
}

function wireGuardFacts(d: WireGuardDeviceState): WireGuardFacts {
  return { ...d, peers: d.peers.map(({ presharedKeyFingerprint: _psk, ...p }) => p) };
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
export async function readRuntime(view: ConfigView, runDir: string, opts: { links?: HostContext; knownLinks?: ReadonlyMap<string, LinkFacts>; wireguard?: HostContext; cache?: ObservationCache } = {}): Promise<RuntimeView> {
  const dhcpv4 = new Map<string, RuntimeFact<Dhcpv4Lease>>();
  const prefixes = new Map<string, RuntimeFact<DelegatedPrefix>>();
  const pppoe = new Map<string, RuntimeFact<PppoeSession>>();
  const bgp = new Map<string, RuntimeFact<BgpDaemonFacts>>();
  let links: ReadonlyMap<string, LinkFacts> | undefined = opts.links ? undefined : opts.knownLinks;
  let wireguard: Map<string, WireGuardFacts> | Error | undefined;
  await Promise.all([
    ...view.all("DHCPv4Client").map(async (r) => dhcpv4.set(r.metadata.name, fact(await resourceState(runDir, DHCPV4_CLIENT_DAEMON, r.metadata.name), isLease))),
    ...view.all("DHCPv6PrefixDelegation").map(async (r) => prefixes.set(r.metadata.name, fact(await resourceState(runDir, "dhcpv6-client", r.metadata.name), isPrefix))),
    ...view.all("PPPoESession").map(async (r) => pppoe.set(r.metadata.name, sessionDefaults(fact(await resourceState(runDir, PPPOE_CLIENT_DAEMON, r.metadata.name), isSession)))),
    ...view.all("BGPRouter").map(async (r) => bgp.set(r.metadata.name, await bgpFacts(runDir, r.metadata.name))),
    ...(opts.links ? [readLinks(opts.links, opts.cache).then((l) => (links = l))] : []),
    ...(opts.wireguard && view.all("WireGuardInterface").length ? [readWireGuard(opts.wireguard).then((w) => (wireguard = w))] : []),
  ]);
  const vrrpRoles = new Map(view.all<{ mode?: string }>("VirtualAddress").filter((r) => r.spec.mode === "vrrp").map((r) => [r.metadata.name, vrrpRole(runDir, r.metadata.name)] as const));
  const facts = { dhcpv4, prefixes, pppoe, vrrpRoles, bgp, ...(links ? { links } : {}), ...(wireguard ? { wireguard } : {}) };
  const aftr = await resolveAftrNames(view.config, runtimeFrom(facts));
  return runtimeFrom({ ...facts, ...(aftr.size ? { aftr } : {}) });
}

const AFTR_LOOKUP = { timeout: 2000, tries: 2 };
/** The name does not exist or has no AAAA: an answer. Anything else (no server answered) is unknown. */
const NO_SUCH_NAME = new Set(["ENOTFOUND", "ENODATA", "NXDOMAIN"]);

/**
 * DS-Lite AFTR names (aftrFQDN, or the name aftrFrom reads: DHCPv6 option 64) resolved to their AAAA records
 * through each tunnel's aftrDNSServers (or the host's resolver). Done before planning, so planning stays pure.
 */
async function resolveAftrNames(config: RouterConfig, runtime: RuntimeView): Promise<Map<string, RuntimeFact<string[]>>> {
  const out = new Map<string, RuntimeFact<string[]>>();
  const tunnels = config.resources.filter((r) => r.kind === "DSLiteTunnel");
  if (!tunnels.length) return out;
  const status = makeStatusView({ config, runtime });
  const names = new Map<string, string[]>();
  for (const r of tunnels) {
    const resolved = status.resolve(r);
    const s = resolved.resource.spec as DSLiteTunnelSpec;
    if (!resolved.pending && s.aftrFQDN && !s.aftrIPv6) names.set(s.aftrFQDN, s.aftrDNSServers);
  }
  await Promise.all(
    [...names].map(async ([name, servers]) => {
      const resolver = new Resolver(AFTR_LOOKUP);
      if (servers.length) resolver.setServers(servers);
      try {
        out.set(name, { state: "present", value: await resolver.resolve6(name) });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? "";
        out.set(name, NO_SUCH_NAME.has(code) ? { state: "absent", reason: `${name}: ${code}` } : { state: "unknown", reason: `${name} did not resolve: ${code || (err as Error).message}` });
      }
    }),
  );
  return out;
}

/**
 * Does anything in the config read a status field of an Interface (which comes from the host's links), or a
 * link's addresses (a DS-Lite tunnel taking its own IPv6 address from its interface)?
 */
export function readsInterfaceStatus(config: { resources: readonly { kind?: string; spec?: unknown; sources?: readonly { resource: string }[]; when?: unknown }[] }): boolean {
  return config.resources.some(
    (r) =>
      r.sources?.some((s) => s.resource.startsWith("Interface/")) ||
      (r.when !== undefined && JSON.stringify(r.when).includes("Interface/")) ||
      (r.kind === "DSLiteTunnel" && (r.spec as { localAddressSource?: string }).localAddressSource === "interface"),
  );
}
