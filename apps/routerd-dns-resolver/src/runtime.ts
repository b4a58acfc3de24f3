// A running resolver built from a config: listeners, local zones (with DHCP names), upstreams and their
// health checks, the resolver itself. `apply` takes a new config without closing sockets that stay or
// dropping the cache; upstreams whose settings did not change keep their health.
import type { Socket } from "node:dgram";
import { AnswerCache, DEFAULT_CACHE, type CacheSettings } from "./cache/answer-cache.js";
import type { ForwarderConfig, ResolverConfig, UpstreamConfig, ZoneConfig } from "./config/config.js";
import type { AnswerValidator } from "./dnssec/validation.js";
import { DEFAULT_SETTLE, MemorySettler } from "./memory/settle.js";
import { QueryLog } from "./resolver/query-log.js";
import { Resolver } from "./resolver/resolver.js";
import { Listeners, type ListenerState } from "./server/listeners.js";
import { loadNative } from "./server/native/addon.js";
import type { TcpLimits } from "./server/tcp-server.js";
import type { ForwardRule } from "./upstream/forwarder.js";
import type { HealthTransition } from "./upstream/health.js";
import { Prober } from "./upstream/prober.js";
import { Upstream } from "./upstream/upstream.js";
import { compileZone } from "./zones/compile.js";
import { LeaseWatcher, type DhcpName } from "./zones/dhcp-leases.js";
import { ZoneStore } from "./zones/zone-store.js";
import { nameFromText, nameKey } from "./wire/name.js";

export interface RuntimeHooks {
  onUpstreamTransition?(upstream: Upstream, t: HealthTransition): void;
  onListeners?(states: ListenerState[]): void;
  onZonesChanged?(zones: ZoneState[]): void;
  onError?(what: string, err: Error): void;
  /** Binds an upstream's UDP socket to its sourceInterface. */
  prepareUdp?(socket: Socket, ifname: string): void;
  /** A validator for the given trust anchors (DNSSEC); undefined disables validation. */
  validator?(trustAnchors: readonly string[]): AnswerValidator | undefined;
  tcpLimits?: TcpLimits;
  now?(): number;
}

export interface ZoneState {
  name: string;
  zone: string;
  records: number;
  dhcpNames: number;
  updatedAt: string;
}

function cacheSettings(c: ResolverConfig["cache"]): CacheSettings {
  return { ...DEFAULT_CACHE, enabled: c.enabled, maxEntries: c.maxEntries, minTtl: c.minTTL, maxTtl: c.maxTTL, negativeTtl: c.negativeTTL, staleTtl: c.staleTTL };
}

export class ResolverRuntime {
  readonly resolver: Resolver;
  readonly listeners: Listeners;
  private upstreams = new Map<string, { config: string; upstream: Upstream }>();
  private readonly leases = new Map<string, LeaseWatcher>();
  private readonly dhcpNames = new Map<string, DhcpName[]>();
  private readonly zoneUpdated = new Map<string, string>();
  private readonly prober: Prober;
  private readonly settler: MemorySettler;
  private readonly now: () => number;
  config: ResolverConfig;

  private constructor(config: ResolverConfig, private readonly hooks: RuntimeHooks) {
    this.config = config;
    this.now = hooks.now ?? Date.now;
    this.prober = new Prober(this.now);
    this.resolver = new Resolver({ zones: new ZoneStore([]), rules: [] }, new AnswerCache(cacheSettings(config.cache)), this.now);
    this.listeners = new Listeners(() => this.resolver, (s) => hooks.onListeners?.(s), hooks.tcpLimits, {
      onSocketError: (message) => hooks.onError?.("udp socket", new Error(message)),
    });
    const native = loadNative().addon;
    this.settler = new MemorySettler(() => this.resolver.stats.queries, { ...DEFAULT_SETTLE, ...(native ? { trim: () => native.trim() } : {}) });
    this.settler.start();
  }

  static async start(config: ResolverConfig, hooks: RuntimeHooks = {}): Promise<ResolverRuntime> {
    const rt = new ResolverRuntime(config, hooks);
    await rt.apply(config);
    return rt;
  }

  /** Takes a (new) config. Returns what changed, for the reload event. */
  async apply(config: ResolverConfig): Promise<{ listeners: ListenerState[]; upstreamsReplaced: string[] }> {
    this.config = config;
    this.resolver.cache.configure(cacheSettings(config.cache));
    const replaced = this.applyUpstreams(config);
    await this.applyLeaseWatchers(config.zones);
    const queryLog = await this.reopenLog(config);
    const anyValidation = config.forwarders.some((f) => f.dnssecValidate);
    this.resolver.update({
      zones: this.buildZones(),
      rules: config.forwarders.map((f) => this.rule(f)),
      validator: anyValidation ? this.hooks.validator?.(config.trustAnchors) : undefined,
      queryLog,
    });
    this.prober.set(
      config.forwarders
        .flatMap((f) => f.upstreams.map((name) => ({ upstream: this.upstreams.get(name)!.upstream, check: f.healthcheck, name: nameFromText(f.match[0] ?? ".") })))
        .filter((t, i, all) => all.findIndex((x) => x.upstream === t.upstream) === i),
    );
    const listeners = await this.listeners.apply(config.listen);
    this.hooks.onZonesChanged?.(this.zoneStates());
    return { listeners, upstreamsReplaced: replaced };
  }

  private async reopenLog(config: ResolverConfig): Promise<QueryLog | undefined> {
    const current = this.resolver.queryLog;
    const want = config.queryLog.enabled ? config.queryLog.path : undefined;
    if (current !== undefined) await current.close();
    return want === undefined ? undefined : new QueryLog(want);
  }

  private thresholdsFor(name: string, config: ResolverConfig): ForwarderConfig["healthcheck"] {
    return config.forwarders.find((f) => f.upstreams.includes(name))?.healthcheck ?? { intervalMs: 5000, timeoutMs: 1000, failThreshold: 3, passThreshold: 1 };
  }

  private applyUpstreams(config: ResolverConfig): string[] {
    const next = new Map<string, { config: string; upstream: Upstream }>();
    const replaced: string[] = [];
    for (const u of config.upstreams) {
      const sig = JSON.stringify(u);
      const old = this.upstreams.get(u.name);
      const t = this.thresholdsFor(u.name, config);
      if (old !== undefined && old.config === sig) {
        old.upstream.health.thresholds = t;
        next.set(u.name, old);
        continue;
      }
      if (old !== undefined) replaced.push(u.name);
      next.set(u.name, { config: sig, upstream: this.makeUpstream(u, t) });
    }
    for (const [name, old] of this.upstreams) if (next.get(name) !== old) old.upstream.close();
    this.upstreams = next;
    return replaced;
  }

  private makeUpstream(u: UpstreamConfig, t: ForwarderConfig["healthcheck"]): Upstream {
    return new Upstream(u, t, {
      onTransition: (up, tr) => this.hooks.onUpstreamTransition?.(up, tr),
      onMismatch: () => this.resolver.stats.mismatchedReplies++,
      ...(this.hooks.prepareUdp ? { prepareUdp: this.hooks.prepareUdp } : {}),
      now: this.now,
    });
  }

  private rule(f: ForwarderConfig): ForwardRule {
    return { config: f, upstreams: f.upstreams.map((n) => this.upstreams.get(n)!.upstream) };
  }

  private async applyLeaseWatchers(zones: readonly ZoneConfig[]): Promise<void> {
    const wanted = new Map(zones.filter((z) => z.dhcp !== undefined).map((z) => [z.name, z]));
    for (const [name, w] of this.leases) {
      const z = wanted.get(name);
      if (z === undefined || JSON.stringify(z.dhcp) !== JSON.stringify(w.config)) {
        w.stop();
        this.leases.delete(name);
        this.dhcpNames.delete(name);
      }
    }
    for (const [name, z] of wanted) {
      if (this.leases.has(name)) continue;
      const w = new LeaseWatcher(
        z.dhcp!,
        (names) => {
          this.dhcpNames.set(name, names);
          this.zoneUpdated.set(name, new Date(this.now()).toISOString());
          // The first read happens inside apply(), which builds the zones itself.
          if (this.leases.get(name) === w) this.rebuildZones();
        },
        (err) => this.hooks.onError?.(`lease file ${z.dhcp!.leaseFile}`, err),
        this.now,
      );
      this.leases.set(name, w);
      await w.start();
    }
  }

  private buildZones(): ZoneStore {
    const defs = this.config.zones.map((z) => {
      if (!this.zoneUpdated.has(z.name)) this.zoneUpdated.set(z.name, new Date(this.now()).toISOString());
      return compileZone(z, this.dhcpNames.get(z.name) ?? []);
    });
    return new ZoneStore(defs);
  }

  private rebuildZones(): void {
    this.resolver.update({ zones: this.buildZones() });
    this.hooks.onZonesChanged?.(this.zoneStates());
  }

  zoneStates(): ZoneState[] {
    const store = this.resolver.zoneStore;
    return this.config.zones.map((z) => ({
      name: z.name,
      zone: z.zone,
      records: store.recordCounts.get(nameKey(nameFromText(z.zone))) ?? 0,
      dhcpNames: this.dhcpNames.get(z.name)?.length ?? 0,
      updatedAt: this.zoneUpdated.get(z.name) ?? "",
    }));
  }

  upstreamList(): Upstream[] {
    return [...this.upstreams.values()].map((u) => u.upstream);
  }

  async close(): Promise<void> {
    this.settler.stop();
    this.prober.stop();
    this.listeners.close();
    for (const w of this.leases.values()) w.stop();
    for (const u of this.upstreams.values()) u.upstream.close();
    await this.resolver.queryLog?.close();
  }
}
