// `routerd serve`: the reconcile loop. It reconciles on config change, on health transitions and
// periodically; starts, watches and tears down the daemons the config needs; follows the cluster lease so
// only the leader mutates the host; and reports itself on <run-dir>/routerd/core.sock.
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { durationMs, loadConfig, makeConfigView, type ConfigView, type EgressRoutePolicySpec, type HealthCheckSpec, type IngressServiceSpec, type LinkFacts, type Resource, type RouterConfig, type RouterdClusterSpec } from "@routerd/api";
import { runDaemon, type DaemonContext, type JsonObject } from "@routerd/daemon-kit";
import { rooted, systemRunner, type DaemonPort, type HostContext, type ResidentInventory } from "@routerd/host";
import { ingressState, type IngressSelection } from "@routerd/render";
import { parseOwnerKey, readStatuses, traceStage } from "@routerd/resource";
import type { Logger } from "pino";
import { FileLease, pollEvery, refreshEvery } from "../cluster/lease.js";
import { selectEgress, type EgressDecision, type HealthState } from "../core/egress.js";
import { planOnly, reconcileOnce } from "../core/engine.js";
import { ingressFacts, selectIngress } from "../core/ingress.js";
import { readLinks, readRuntime, readsInterfaceStatus } from "../core/runtime.js";
import { publishedStatus } from "../core/status.js";
import type { DesiredState } from "../core/desired.js";
import { formatIssue } from "../commands/validate.js";
import { daemonSpecs, type DaemonDirs } from "./daemons.js";
import type { EarlyStart } from "./early-start.js";
import { ProbeStateMemory, readProbeStates, watchTransitions } from "./health.js";
import { watchLeaseEvents } from "./lease-events.js";
import { liveMessages } from "./live-status.js";
import { daemonResources, nextResolved, type ResolvedEntry } from "./resolved.js";
import { nextDueAt, shouldCycle, sleepMs } from "./schedule.js";
import { Supervisor } from "./supervisor.js";
import { TailscaleNodes } from "./tailscale.js";
import { UnitDaemons } from "./unit-daemons.js";
import { runsAsUnit, type SupervisorMode } from "../core/service-units.js";
import { ServeGenerations } from "./confirm.js";
import { VrrpRoles } from "./vrrp-roles.js";
import { inventoryDetails, serveInventory } from "./inventory.js";
import { ServeTelemetry } from "./telemetry.js";
import type { MetricFamily, Pipeline } from "@routerd/telemetry";

export interface ServeOptions {
  configPath: string;
  host: HostContext;
  intervalMs: number;
  nodeName: string;
  stopDaemonsOnExit: boolean;
  logger: Logger;
  keepGenerations?: number;
  /** Who runs the daemons: this serve (builtin, the default) or the units reconcile generates (systemd). */
  supervisor?: SupervisorMode;
  /** What serve's command started before this loop existed (early-start.ts), with the config it parsed. */
  early?: EarlyStart;
  /** The ObservabilityPipeline runtime: serve's own pipeline (its logger writes into it too) and where metrics are served. */
  telemetry?: { pipeline: Pipeline; metricsListen: string };
}

export class Server {
  private config?: RouterConfig;
  private configText = "";
  private lease?: FileLease;
  private readonly decisions = new Map<string, EgressDecision>();
  /** The last probe states read, used while routerd-healthcheck misses an answer. */
  private readonly probeStates = new ProbeStateMemory();
  /** Backends taking new connections per IngressService, as last rendered ("a,b"). */
  private readonly ingressActive = new Map<string, string>();
  /** Resources with their `*From` values filled in, as the last reconcile resolved them (for daemon configs). */
  private resolved = new Map<string, ResolvedEntry>();
  /** The host's links, read after the last run: the Interface status serve publishes. */
  private links?: ReadonlyMap<string, LinkFacts>;
  private readonly vrrpRoles = new VrrpRoles();
  private readonly supervisor: Supervisor;
  private readonly tailscale: TailscaleNodes;
  /** Under --supervisor systemd: the config files of the daemons systemd runs. */
  private readonly units: UnitDaemons;
  private wake?: () => void;
  private kicked = false;
  private timer?: NodeJS.Timeout;
  private ctx?: DaemonContext;
  private readonly generations: ServeGenerations;
  private lastCycleAt = 0;
  private readonly telemetry?: ServeTelemetry;
  /** The kernel as last observed, kept current by netlink notifications (see inventory.ts). */
  private readonly resident: ResidentInventory;

  constructor(private readonly opts: ServeOptions) {
    const t = opts.telemetry;
    if (t) this.telemetry = new ServeTelemetry(t.pipeline, opts.host.runDir, t.metricsListen, opts.logger, () => this.metrics());
    this.supervisor = new Supervisor({ runDir: opts.host.runDir, stateDir: opts.host.stateDir, ...(this.telemetry ? { env: (daemon: string) => this.telemetry!.env(daemon) } : {}) }, opts.logger);
    this.units = new UnitDaemons(opts.host, opts.logger, this.mode === "rc.d" ? "rc.d" : "systemd");
    this.tailscale = new TailscaleNodes(opts.host.runner, opts.logger, this.mode === "builtin");
    this.generations = new ServeGenerations(opts.host.stateDir, opts.configPath, opts.logger, opts.keepGenerations);
    this.resident = serveInventory(opts.logger, () => this.ctx);
  }

  private get mode(): SupervisorMode {
    return this.opts.supervisor ?? "builtin";
  }

  /** The daemons this serve runs itself: under systemd, those with a generated unit are left to it. */
  private supervised(view: ConfigView, dirs: DaemonDirs) {
    return daemonSpecs(view, dirs).filter((s) => !runsAsUnit(s.daemon, this.mode));
  }

  private underSystemd(view: ConfigView, dirs: DaemonDirs) {
    return daemonSpecs(view, dirs).filter((s) => runsAsUnit(s.daemon, this.mode));
  }

  /** Ask for a reconcile soon (debounced: many kicks, one run). */
  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  async run(): Promise<void> {
    const daemon = await runDaemon({
      name: "routerd",
      instance: "core",
      runDir: this.opts.host.runDir,
      stateDir: this.opts.host.stateDir,
      logger: this.opts.logger,
      // An operator's request reads the whole host again, whatever the notifications said.
      commands: { reconcile: () => this.recheck("routerctl reconcile") },
      onReload: () => this.recheck("SIGHUP"),
      onStop: () => this.wake?.(),
      ...(this.telemetry ? { telemetry: this.telemetry.pipeline } : {}),
    });
    this.ctx = daemon;
    traceStage("serve: socket up");
    const early = this.opts.early;
    if (early?.started.length) this.opts.logger.info({ daemons: early.started }, "session daemons started before the first reconcile");
    else if (early?.skipped) this.opts.logger.debug({ reason: early.skipped }, "no daemon started before the first reconcile");
    this.resident.start();
    this.supervisor.start();
    void watchTransitions(this.opts.host.runDir, daemon.signal, () => this.kick());
    void watchLeaseEvents(this.opts.host.runDir, daemon.signal, () => this.config, () => this.kick());
    this.kicked = true;
    while (!daemon.signal.aborted) {
      if (!this.kicked) await this.sleep(sleepMs(Date.now(), this.dueAt()));
      if (daemon.signal.aborted) break;
      if (!shouldCycle({ kicked: this.kicked, now: Date.now(), dueAt: this.dueAt(), configChanged: () => this.configFileChanged() || this.generations.pendingChanged() })) continue;
      traceStage(`serve: cycle starts (${this.kicked ? "kicked" : "due"})`);
      this.kicked = false;
      this.lastCycleAt = Date.now();
      try {
        await this.cycle(daemon);
      } catch (err) {
        this.opts.logger.error({ err }, "reconcile cycle failed");
        daemon.events.emit({ topic: "reconcile.failed", severity: "error", message: (err as Error).message });
      }
    }
    this.resident.stop();
    if (this.opts.stopDaemonsOnExit) await this.supervisor.stopAll();
    else this.supervisor.detach();
    this.lease?.release();
    await daemon.done;
    await this.telemetry?.close();
  }

  private recheck(why: string): void {
    this.resident.doubt(`${why}: everything is read again`);
    this.kick();
  }

  /** Serve's gauges for the Prometheus endpoint. */
  private metrics(): MetricFamily[] {
    const phases = new Map<string, number>();
    for (const r of this.ctx?.status.resources() ?? []) phases.set(r.phase, (phases.get(r.phase) ?? 0) + 1);
    return [
      { name: "routerd_resources", help: "Resources by their last phase.", type: "gauge", samples: [...phases].map(([phase, value]) => ({ labels: { phase }, value })) },
      { name: "routerd_daemons", help: "Daemons serve supervises.", type: "gauge", samples: [{ value: this.supervisor.running().length }] },
      { name: "routerd_daemon_restarts_total", help: "Restarts of supervised daemons.", type: "counter", samples: this.supervisor.running().map((d) => ({ labels: { daemon: d.daemon, instance: d.instance }, value: d.restarts })) },
      { name: "process_resident_memory_bytes", help: "Resident memory of routerd serve.", type: "gauge", samples: [{ value: process.memoryUsage().rss }] },
    ];
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(this.timer);
        resolve();
      };
    });
  }

  /** When the next cycle is due without a kick: the periodic reconcile, the lease, a pending failback or revert. */
  private dueAt(): number {
    const now = Date.now();
    const deadlinesAt: number[] = [];
    for (const [name, d] of this.decisions) {
      const spec = this.config && makeConfigView(this.config).find<EgressRoutePolicySpec>("EgressRoutePolicy", name)?.spec;
      if (d.pending && spec) deadlinesAt.push(d.pending.since + durationMs(spec.failbackDelay));
    }
    const revertInMs = this.generations.msUntilRevert(now);
    if (revertInMs !== undefined) deadlinesAt.push(now + revertInMs);
    const leaseEveryMs = this.lease && (this.lease.isLeader() ? refreshEvery(this.lease.timing) : pollEvery(this.lease.timing));
    return nextDueAt({ lastCycleAt: this.lastCycleAt, intervalMs: this.opts.intervalMs, deadlinesAt, ...(leaseEveryMs !== undefined ? { leaseEveryMs } : {}) });
  }

  /** The config file is polled (fs.watch misses atomic renames on some filesystems); unreadable is "unchanged". */
  private configFileChanged(): boolean {
    try {
      return readFileSync(this.opts.configPath, "utf8") !== this.configText;
    } catch {
      return false;
    }
  }

  private loadConfigIfChanged(ctx: DaemonContext): void {
    let text: string;
    try {
      text = readFileSync(this.opts.configPath, "utf8");
    } catch (err) {
      if (!this.config) throw err;
      return;
    }
    if (text === this.configText && this.config) return;
    this.configText = text;
    // The command parsed this very text already to start the session daemons early.
    const early = this.opts.early;
    const result = early?.config && early.text === text ? { config: early.config, issues: [] } : loadConfig(text, this.opts.configPath);
    if (early) delete early.config;
    traceStage("serve: config parsed and validated");
    if (!result.config) {
      const detail = result.issues.filter((i) => i.severity === "error").map(formatIssue);
      this.opts.logger.error({ issues: detail }, "config invalid; keeping the last good one");
      ctx.events.emit({ topic: "config.invalid", severity: "error", message: detail.join("\n") });
      return;
    }
    this.config = result.config;
    void this.telemetry?.apply(makeConfigView(result.config)).catch((err: unknown) => this.opts.logger.error({ err }, "telemetry settings not applied"));
    ctx.events.emit({ topic: "config.loaded", message: `${result.config.resources.length} resources` });
    const cluster = makeConfigView(result.config).all<RouterdClusterSpec>("RouterdCluster")[0];
    if (cluster) {
      const path = rooted(this.opts.host, cluster.spec.leasePath);
      if (!this.lease || this.lease.path !== path) this.lease = new FileLease(path, cluster.spec.nodeName ?? this.opts.nodeName, { ttlMs: durationMs(cluster.spec.ttl) });
    } else {
      this.lease?.release();
      this.lease = undefined;
    }
  }

  private async cycle(ctx: DaemonContext): Promise<void> {
    this.loadConfigIfChanged(ctx);
    const config = this.config;
    if (!config) return;
    const view = makeConfigView(config);

    if (this.lease) {
      const before = this.lease.current.role;
      const state = this.lease.tick();
      if (state.role !== before) ctx.events.emit({ topic: "cluster.role", message: state.role, attributes: { from: before, to: state.role } });
      ctx.status.setResource("cluster", { kind: "RouterdCluster", phase: state.role, message: state.role === "standby" ? `leader: ${state.holder ?? "none"}` : state.role === "fenced" ? state.reason : "" });
      if (state.role !== "leader") {
        // Standby: plan only, and make sure nothing keeps running that would act on the host.
        await this.supervisor.stopAll();
        this.supervisor.start();
        const run = await planOnly(config, { host: this.opts.host, supervisor: this.mode, resident: this.resident }, this.opts.host.stateDir);
        ctx.status.setDetails({ role: state.role, pendingChanges: run.plan.summary.create + run.plan.summary.update + run.plan.summary.delete });
        return;
      }
    }

    // A pending confirmation: revert it when due; do not apply a different config meanwhile.
    const held = await this.generations.tick(ctx, this.configText, (c, allowEmpty, beforeApply) => reconcileOnce(c, { host: this.opts.host, supervisor: this.mode, allowEmpty, beforeApply }));
    if (held === "reverted") {
      this.kick(); // the config file holds the restored generation: reload and reconcile it with the daemons
      return;
    }
    if (held === "hold") {
      ctx.status.setDetails({ held: "a change waits for confirmation", pendingConfirmation: this.generations.details() ?? null });
      return;
    }

    const dirs = { runDir: this.opts.host.runDir, stateDir: this.opts.host.stateDir, root: this.opts.host.root };
    // Daemon facts are read once here: reconcile uses them, and so does the status serve reports.
    const [read, runtime] = await Promise.all([readProbeStates(this.opts.host.runDir), readRuntime(view, this.opts.host.runDir, { ...(readsInterfaceStatus(config) ? { links: this.opts.host } : this.links ? { knownLinks: this.links } : {}), wireguard: this.opts.host, cache: this.resident.cache })]);
    const health = this.probeStates.use(read, Date.now());
    const selection = this.selectUplinks(view.all<EgressRoutePolicySpec>("EgressRoutePolicy"), health, ctx);
    const ingress = selectIngress(view, health);
    const when = new Map([...health].map(([name, state]) => [`HealthCheck/${name}`, { phase: state }]));
    // Daemons are configured from the active resources with their values filled in (a probe's lease-derived
    // target, say); until this run computed them, from the config with the last run's values.
    let active: ConfigView = this.withResolved(config);
    const port: DaemonPort = {
      // Specs are computed when used: a daemon's config file may have been written earlier in this apply.
      ensure: async (attrs) => {
        const spec = this.supervised(active, dirs).find((s) => s.daemon === attrs.daemon && s.instance === attrs.instance);
        if (spec) this.supervisor.ensure(spec);
      },
      remove: async (attrs) => {
        await this.tailscale.logout(attrs, dirs); // a tailscale node leaves its tailnet first
        await this.supervisor.remove(String(attrs.daemon), String(attrs.instance), true);
      },
    };
    if (this.lease && !this.lease.isLeader()) return; // fenced between tick and now
    const onDesired = (d: DesiredState) => {
      // A resource whose source is briefly unknown keeps its last values in daemon configs (resolved.ts).
      this.resolved = nextResolved(this.resolved, d.view);
      active = makeConfigView({ ...config, resources: daemonResources(d.view, this.resolved) }, runtime);
      this.units.write(this.underSystemd(active, dirs)); // before the apply that may start their units
    };
    const result = await reconcileOnce(config, { host: this.opts.host, supervisor: this.mode, selection, ingress, when, daemons: port, runtime, publish: true, facts: this.facts(config, health, ingress), onDesired, resident: this.resident });
    // Interface status for the next run, read off the critical path (a failover does not wait for it).
    if (config.resources.some((r) => r.kind === "Interface")) void readLinks(this.opts.host, this.resident.cache).then((l) => (this.links = l));
    this.reportBackends(result.desired.view.active, ingress, ctx);
    traceStage("serve: cycle applied");
    this.generations.record(this.configText, result);
    // Daemons already recorded still get config changes and restarts.
    for (const spec of this.supervised(active, dirs)) this.supervisor.ensure(spec);
    this.units.write(this.underSystemd(active, dirs));
    await this.units.deliver();
    this.tailscale.sync(active, dirs);

    const statuses = readStatuses(this.opts.host.stateDir);
    const live = liveMessages({ view, resolved: active, runtime, health, decisions: this.decisions, ingress });
    const configured = new Set(config.resources.map((r) => r.owner));
    for (const s of statuses.values()) {
      const p = parseOwnerKey(s.owner);
      const key = `${p.kind}/${p.name}`;
      // details: the fields the resource publishes (its provides table), as `routerd status --json` shows them.
      const details = result.status && configured.has(s.owner) ? (publishedStatus(result.status, key) as JsonObject) : undefined;
      ctx.status.setResource(key, { kind: p.kind, phase: s.phase, message: s.message ?? live.get(key) ?? s.reason ?? "", ...(details ? { details } : {}) });
    }
    this.vrrpRoles.report(view, dirs.runDir, ctx, (key) => ctx.status.resource(key)?.phase);
    for (const r of ctx.status.resources()) {
      if (r.name !== "cluster" && !statuses.has(config.resources.find((x) => `${x.kind}/${x.metadata.name}` === r.name)?.owner ?? "")) ctx.status.removeResource(r.name);
    }
    ctx.status.setPhase(result.ok ? "Running" : "Degraded");
    const pendingConfirmation = this.generations.details();
    ctx.status.setDetails({ lastReconcile: new Date().toISOString(), ok: result.ok, summary: result.plan.summary, daemons: this.supervisor.running(), inventory: inventoryDetails(this.resident.state()), ...(pendingConfirmation ? { pendingConfirmation } : {}) });
    if (result.changed || !result.ok) {
      ctx.events.emit({
        topic: result.ok ? "reconcile.applied" : "reconcile.failed",
        severity: result.ok ? "info" : "error",
        message: `${result.plan.summary.create} created, ${result.plan.summary.update} updated, ${result.plan.summary.delete} deleted`,
        attributes: { failed: String(result.results.filter((r) => !r.ok).length) },
      });
    }
  }

  /** Status fields only serve knows: its uplink choices' transition times, its IngressService backends' health. */
  private facts(config: RouterConfig, health: Map<string, HealthState>, ingress: IngressSelection): Map<string, Record<string, unknown>> {
    return new Map([...this.egressFacts(), ...ingressFacts(this.withResolved(config), health, ingress, new Date()), ...(this.telemetry?.facts() ?? []), ...this.tailscale.facts()]);
  }

  /** When each policy last moved to its current candidate (its status's lastTransitionAt). */
  private egressFacts(): Map<string, Record<string, unknown>> {
    const out = new Map<string, Record<string, unknown>>();
    for (const [name, d] of this.decisions) out.set(`EgressRoutePolicy/${name}`, { lastTransitionAt: new Date(d.changedAt).toISOString() });
    return out;
  }

  private selectUplinks(policies: { metadata: { name: string }; spec: EgressRoutePolicySpec }[], health: Map<string, HealthState>, ctx: DaemonContext): Map<string, string> {
    const now = Date.now();
    const selection = new Map<string, string>();
    const disabled = new Set(this.config ? makeConfigView(this.config).all<HealthCheckSpec>("HealthCheck").filter((h) => !h.spec.enabled).map((h) => h.metadata.name) : []);
    for (const p of policies) {
      const prev = this.decisions.get(p.metadata.name);
      const next = selectEgress(p.spec, health, prev, now, disabled);
      if (prev && prev.active !== next.active) {
        ctx.events.emit({ topic: "egress.switched", resource: `EgressRoutePolicy/${p.metadata.name}`, message: `${prev.active} → ${next.active}`, attributes: { from: prev.active, to: next.active } });
      }
      this.decisions.set(p.metadata.name, next);
      selection.set(p.metadata.name, next.active);
    }
    for (const name of [...this.decisions.keys()]) if (!policies.some((p) => p.metadata.name === name)) this.decisions.delete(name);
    return selection;
  }

  /** Daemon configs (a backend's probe, say) need `*From` values: those the last reconcile resolved. */
  private withResolved(config: RouterConfig): ConfigView {
    return makeConfigView({ ...config, resources: config.resources.map((r) => this.resolved.get(r.owner)?.resource ?? r) });
  }

  /** An event whenever the backends taking new connections change (rendered from the resolved resources). */
  private reportBackends(active: readonly Resource[], ingress: IngressSelection, ctx: DaemonContext): void {
    const services = active.filter((r): r is Resource<IngressServiceSpec> => r.kind === "IngressService");
    for (const r of services) {
      const name = r.metadata.name;
      const now = ingressState(r, ingress).active.map((t) => t.name).join(",");
      const before = this.ingressActive.get(name);
      if (before !== undefined && before !== now) {
        ctx.events.emit({
          topic: "ingress.backends",
          resource: `IngressService/${name}`,
          severity: now ? "info" : "warning",
          message: now ? `new connections go to ${now.replace(/,/g, ", ")}` : "no healthy backend",
          attributes: { from: before, to: now },
        });
      }
      this.ingressActive.set(name, now);
    }
    for (const name of [...this.ingressActive.keys()]) if (!services.some((r) => r.metadata.name === name)) this.ingressActive.delete(name);
  }
}

export function defaultNodeName(): string {
  return hostname();
}

export function serveHost(v: { root: string; stateDir: string; runDir: string }): HostContext {
  return { root: v.root, stateDir: v.stateDir, runDir: v.runDir, runner: systemRunner };
}
