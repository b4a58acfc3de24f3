// The daemon wiring, shared by main.ts and the tests: config file → ResolverRuntime inside runDaemon(), the
// Resolver gRPC service next to the kit's, status resources per listener, zone, forwarder and upstream,
// events on upstream health, reload (SIGHUP / "reload") re-reading the file without closing sockets, and
// the "flush" command.
import type { Socket } from "node:dgram";
import { runDaemon, type DaemonContext, type DaemonHandle, type JsonObject } from "@routerd/daemon-kit";
import { ResolverService } from "@routerd/rpc/gen/routerd/dns/v1/resolver";
import type { Logger } from "pino";
import { loadResolverConfig, type ResolverConfig } from "./config/config.js";
import type { AnswerValidator } from "./dnssec/validation.js";
import { resolverServer, statsView } from "./grpc-service.js";
import { DAEMON_NAME } from "./names.js";
import { ResolverRuntime, type RuntimeHooks, type ZoneState } from "./runtime.js";
import type { ListenerState } from "./server/listeners.js";
import type { HealthTransition } from "./upstream/health.js";
import type { Upstream } from "./upstream/upstream.js";
import { nameFromText } from "./wire/name.js";

export interface DnsResolverDaemonOptions {
  /** Absolute path of the JSON config; re-read on reload. */
  configPath: string;
  /** The DNSResolver's name. */
  instance: string;
  runDir?: string;
  stateDir?: string;
  logger?: Logger;
  /** Default true; tests running in-process turn it off. */
  handleSignals?: boolean;
  signal?: AbortSignal;
  prepareUdp?: (socket: Socket, ifname: string) => void;
  validator?: (trustAnchors: readonly string[]) => AnswerValidator | undefined;
}

export interface DnsResolverDaemon {
  daemon: DaemonHandle;
  runtime: ResolverRuntime;
}

type Ctx = Pick<DaemonContext, "status" | "events" | "instance">;

function publishListeners(ctx: Ctx, config: ResolverConfig, states: ListenerState[]): void {
  const bound = states.filter((s) => s.bound);
  const failed = states.filter((s) => !s.bound);
  ctx.status.setResource(`DNSResolver/${ctx.instance}`, {
    kind: "DNSResolver",
    phase: failed.length === 0 ? "Serving" : bound.length > 0 ? "Degraded" : "Pending",
    message: failed.map((f) => `${f.address}:${f.port}: ${f.error ?? "not bound"}`).join("; "),
    details: {
      listeners: config.listen.length,
      listenAddresses: [...new Set(bound.map((s) => s.address))],
      sources: config.listen.reduce((n, l) => n + l.sources.length, 0),
      ...udpTransportDetails(bound),
      updatedAt: new Date().toISOString(),
    },
  });
  ctx.status.setCondition({
    type: "Listening",
    status: failed.length === 0 ? "True" : "False",
    reason: failed.length === 0 ? "Bound" : "BindFailed",
    message: failed.length === 0 ? `${states.length} socket pair(s)` : failed.map((f) => `${f.address}:${f.port}: ${f.error}`).join("; "),
  });
  refreshPhase(ctx);
}

/** Which UDP sockets serve: "native" (recvmmsg/sendmmsg helper) or "dgram", and why dgram. */
function udpTransportDetails(bound: readonly ListenerState[]): JsonObject {
  const kinds = [...new Set(bound.flatMap((s) => (s.udpTransport ? [s.udpTransport] : [])))];
  const notes = [...new Set(bound.flatMap((s) => (s.udpTransportNote ? [s.udpTransportNote] : [])))];
  return kinds.length === 0 ? {} : { udpTransport: kinds.join(","), udpTransportNote: notes.join("; ") };
}

function logUdpTransport(logger: Logger | undefined, states: readonly ListenerState[]): void {
  const d = udpTransportDetails(states.filter((s) => s.bound));
  if (d.udpTransport === undefined) return;
  if (d.udpTransport === "native") logger?.info(d, "UDP through the native batch helper");
  else logger?.warn(d, "UDP through node:dgram (slower: one call per datagram)");
}

function publishZones(ctx: Ctx, zones: ZoneState[]): void {
  const keep = new Set(zones.map((z) => `DNSZone/${z.name}`));
  for (const r of ctx.status.resources()) if (r.kind === "DNSZone" && !keep.has(r.name)) ctx.status.removeResource(r.name);
  for (const z of zones) {
    ctx.status.setResource(`DNSZone/${z.name}`, {
      kind: "DNSZone",
      phase: "Ready",
      message: `${z.records} record(s), ${z.dhcpNames} from DHCP`,
      details: { zone: z.zone, records: z.records, pendingRecords: [], dhcpNames: z.dhcpNames, updatedAt: z.updatedAt },
    });
  }
}

function publishUpstream(ctx: Ctx, u: Upstream): void {
  ctx.status.setResource(`DNSUpstream/${u.name}`, {
    kind: "DNSUpstream",
    phase: u.health.state === "up" ? "Up" : "Down",
    message: u.health.state === "up" ? "" : u.health.lastError,
    details: { address: u.config.address, url: u.url, protocol: u.config.protocol },
  });
}

function publishConfig(ctx: Ctx, rt: ResolverRuntime): void {
  const config = rt.config;
  const keepUpstreams = new Set(config.upstreams.map((u) => `DNSUpstream/${u.name}`));
  const keepForwarders = new Set(config.forwarders.map((f) => `DNSForwarder/${f.name}`));
  for (const r of ctx.status.resources()) {
    if ((r.kind === "DNSUpstream" && !keepUpstreams.has(r.name)) || (r.kind === "DNSForwarder" && !keepForwarders.has(r.name))) ctx.status.removeResource(r.name);
  }
  for (const u of rt.upstreamList()) publishUpstream(ctx, u);
  for (const f of config.forwarders) {
    ctx.status.setResource(`DNSForwarder/${f.name}`, {
      kind: "DNSForwarder",
      phase: "Ready",
      message: `${f.match.join(" ")} → ${f.upstreams.join(", ") || "local zones"}`,
      details: { resolver: ctx.instance, upstreams: f.upstreams.map((u) => `DNSUpstream/${u}`), match: f.match, dnssecValidate: f.dnssecValidate },
    });
  }
}

/** Running unless a listener is unbound or a forwarder has no upstream up. */
function refreshPhase(ctx: Ctx): void {
  const resources = ctx.status.resources();
  const unbound = resources.some((r) => r.kind === "DNSResolver" && r.phase !== "Serving");
  const down = new Set(resources.filter((r) => r.kind === "DNSUpstream" && r.phase === "Down").map((r) => r.name));
  const stranded = resources.some((r) => {
    if (r.kind !== "DNSForwarder") return false;
    const ups = (r.details?.upstreams as string[] | undefined) ?? [];
    return ups.length > 0 && ups.every((u) => down.has(u));
  });
  ctx.status.setPhase(unbound || stranded ? "Degraded" : "Running");
}

function hooksFor(ctx: Ctx, opts: DnsResolverDaemonOptions, logger: Logger | undefined): RuntimeHooks {
  return {
    onUpstreamTransition(u: Upstream, t: HealthTransition) {
      ctx.events.emit({
        topic: t.to === "down" ? "dns.upstream.down" : "dns.upstream.up",
        severity: t.to === "down" ? "warning" : "info",
        resource: `DNSUpstream/${u.name}`,
        message: `${u.name} (${u.url}) is ${t.to}: ${t.reason}`,
        attributes: { from: t.from, to: t.to, url: u.url },
      });
      publishUpstream(ctx, u);
      refreshPhase(ctx);
    },
    onZonesChanged: (zones) => publishZones(ctx, zones),
    onError: (what, err) => logger?.warn({ err, what }, "resolver error"),
    ...(opts.prepareUdp ? { prepareUdp: opts.prepareUdp } : {}),
    ...(opts.validator ? { validator: opts.validator } : {}),
  };
}

/** Loads the config (ConfigError when invalid), starts the daemon (DaemonStartError) and the resolver. */
export async function startDnsResolverDaemon(opts: DnsResolverDaemonOptions): Promise<DnsResolverDaemon> {
  const { configPath } = opts;
  const initial = await loadResolverConfig(configPath);
  let runtime: ResolverRuntime | undefined;
  const daemon = await runDaemon({
    name: DAEMON_NAME,
    instance: opts.instance,
    ...(opts.runDir !== undefined ? { runDir: opts.runDir } : {}),
    ...(opts.stateDir !== undefined ? { stateDir: opts.stateDir } : {}),
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
    ...(opts.handleSignals !== undefined ? { handleSignals: opts.handleSignals } : {}),
    ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
    services: () => [{ definition: ResolverService, implementation: resolverServer(() => runtime) }],
    liveDetails: (): JsonObject => {
      if (runtime === undefined) return {};
      const s = statsView(runtime);
      return { config: configPath, counters: s.counters, cacheEntries: s.cacheEntries, cacheBytes: s.cacheBytes, tcpConnections: s.tcpConnections };
    },
    commands: {
      flush: (args) => {
        if (runtime === undefined) throw new Error("resolver not started");
        const removed = runtime.resolver.flush(args.name ? nameFromText(args.name) : undefined);
        return { message: `${removed} cached answer(s) removed`, details: { removed } };
      },
    },
    onReload: async (ctx) => {
      let next: ResolverConfig;
      try {
        next = await loadResolverConfig(configPath);
      } catch (err) {
        // The last good config keeps serving.
        ctx.status.setCondition({ type: "ConfigLoaded", status: "False", reason: "Invalid", message: (err as Error).message });
        throw err;
      }
      if (runtime === undefined) return;
      const result = await runtime.apply(next);
      announce(ctx, runtime, result.upstreamsReplaced);
      publishListeners(ctx, next, result.listeners);
    },
    onStop: async () => {
      await runtime?.close();
    },
  });
  const ctx: Ctx = daemon;
  try {
    runtime = await ResolverRuntime.start(initial, {
      ...hooksFor(ctx, opts, opts.logger),
      onListeners: (states) => runtime && publishListeners(ctx, runtime.config, states),
    });
  } catch (err) {
    await daemon.stop("resolver failed to start");
    throw err;
  }
  announce(ctx, runtime, []);
  publishListeners(ctx, initial, runtime.listeners.states());
  logUdpTransport(opts.logger, runtime.listeners.states());
  return { daemon, runtime };
}

function announce(ctx: Ctx, rt: ResolverRuntime, replaced: string[]): void {
  const c = rt.config;
  ctx.status.setCondition({ type: "ConfigLoaded", status: "True", reason: "Loaded", message: `${c.zones.length} zone(s), ${c.forwarders.length} forwarder(s), ${c.upstreams.length} upstream(s)` });
  publishConfig(ctx, rt);
  publishZones(ctx, rt.zoneStates());
  ctx.events.emit({
    topic: "dns.config.applied",
    message: `${c.listen.length} listener(s), ${c.zones.length} zone(s), ${c.forwarders.length} forwarder(s), ${c.upstreams.length} upstream(s)`,
    attributes: { upstreamsReplaced: replaced.join(",") },
  });
  refreshPhase(ctx);
}
