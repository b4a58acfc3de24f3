// One BGPRouter: its gobgpd (started or re-attached), the config applied as a diff, the ingest (peer
// states + pre-policy Adj-RIB-In, from BMP or WatchEvent: gobgp/ingest.ts) feeding the local RIB, whose
// best paths the FIB programmer writes, and the redistributed prefixes. daemon.ts wires it into
// runDaemon; this file holds the life cycle.
import { readFileSync } from "node:fs";
import { bgpFibTarget } from "@routerd/api";
import { writeFileAtomic } from "@routerd/resource";
import type { Peer } from "@routerd/gobgp-api/gen/gobgp";
import { durationMs } from "@routerd/api";
import type { SpanRecord } from "@routerd/daemon-kit";
import type { Logger } from "pino";
import type { BgpConfig } from "./config/config.js";
import { resolvePassword } from "./config/password.js";
import { RouteMonitor } from "./fib/monitor.js";
import { FibProgrammer } from "./fib/programmer.js";
import { applyDesired, appliedFromJson, appliedToJson, emptyApplied, type ApplyReport } from "./gobgp/apply.js";
import { GobgpClient } from "./gobgp/client.js";
import { desiredBgp } from "./gobgp/desired.js";
import { BfdManager, type BfdTransition } from "./bfd/manager.js";
import type { BfddPaths } from "./bfd/bfdd.js";
import type { CompanionProcess } from "./companion.js";
import { gobgpdProcess, type GobgpdPaths } from "./gobgp/gobgpd.js";
import { DEFAULT_INGEST, ingestKind, type Ingest, type IngestFactory, type IngestKind } from "./gobgp/ingest.js";
import { watchIngest } from "./gobgp/watch-ingest.js";
import { bmpIngest } from "./bmp/ingest.js";
import { PeerTable, type PeerTransition } from "./peers.js";
import { reattachHold } from "./reattach.js";
import { Redistributor } from "./redistribute.js";
import type { AdjInPath } from "./rib/attrs.js";
import { GracefulRestartTracker } from "./rib/graceful.js";
import { LocalRib, ribNeighbors } from "./rib/local-rib.js";

/** The ingests by name (ROUTERD_BGP_INGEST). */
const INGESTS: Record<IngestKind, IngestFactory> = { watch: watchIngest, bmp: bmpIngest };

export interface RouterOptions {
  config: BgpConfig;
  paths: GobgpdPaths;
  bfdPaths: BfddPaths;
  /** bfdd binary (default: FRR's /usr/lib/frr/bfdd). */
  bfddBinary?: string;
  onBfdTransition?: (t: BfdTransition) => void;
  /** Where what was applied to gobgpd is recorded, so a re-attached routerd-bgp does not touch unchanged neighbors. */
  appliedFile: string;
  logger: Logger;
  gobgpdBinary?: string;
  gobgpdLogLevel?: string;
  /** The owner record the companions' keepers watch (none: no keepers). */
  owner?: { file: string; match: string; graceMs: number };
  /** gobgpd and bfdd outlive routerd-bgp on purpose (--keep-gobgpd); otherwise they die with it. */
  keepCompanions?: boolean;
  /** After a gobgpd restart, routes it has not relearned are dropped after this long at the latest. */
  staleHoldMs?: number;
  /** ...or once every neighbor is Established and no path arrived for this long. */
  quietMs?: number;
  onPeerTransition?: (t: PeerTransition) => void;
  onChange?: () => void;
  /** After FIB chunks apply (often, during a full-table load). */
  onFibProgress?: () => void;
  /** The daemon's ctx.trace: FIB chunks as spans. */
  trace?: (span: SpanRecord) => void;
  /** Where the paths come from (default: ROUTERD_BGP_INGEST, else DEFAULT_INGEST). */
  ingest?: IngestKind;
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

const durationMsOr = (d: string | undefined, fallback: number) => (d === undefined ? fallback : durationMs(d));

/** A neighbor Established this long without sending a path announces nothing: retained routes need not wait for it. */
const SILENT_NEIGHBOR_MS = 10_000;

export type RouterPhase = "Starting" | "Running" | "GobgpdDown" | "Failed";

export class BgpRouter {
  config: BgpConfig;
  readonly process: CompanionProcess;
  readonly client: GobgpClient;
  readonly fib: FibProgrammer | undefined;
  readonly peers = new PeerTable();
  readonly bfd: BfdManager;
  readonly rib = new LocalRib();
  private readonly graceful: GracefulRestartTracker;
  private readonly redistributor: Redistributor;
  private applied = emptyApplied();
  private ingest: Ingest | undefined;
  readonly ingestKind: IngestKind;
  private monitor: RouteMonitor | undefined;
  private stopping = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  private lastPathAt = 0;
  private pathEvents = 0;
  private pathChanges = 0;
  private eventsAtLastCount = -1;
  private holdingSince = 0;
  /** The neighbors the sweep of retained routes waits for (undefined: all of them). */
  private waitFor: ReadonlySet<string> | undefined;
  phase: RouterPhase = "Starting";
  lastError = "";
  lastApply: ApplyReport | undefined;
  /** When gobgpd last came up, and whether it was re-attached rather than started. */
  gobgpdSince = 0;
  attached = false;

  constructor(private readonly opts: RouterOptions) {
    this.config = opts.config;
    this.ingestKind = opts.ingest ?? ingestKind(process.env.ROUTERD_BGP_INGEST, DEFAULT_INGEST);
    this.process = gobgpdProcess({
      paths: opts.paths,
      ...(opts.owner !== undefined ? { owner: opts.owner } : {}),
      logger: opts.logger.child({ component: "gobgpd" }),
      keep: opts.keepCompanions === true,
      ...(opts.gobgpdBinary !== undefined ? { binary: opts.gobgpdBinary } : {}),
      ...(opts.gobgpdLogLevel !== undefined ? { logLevel: opts.gobgpdLogLevel } : {}),
    });
    this.client = new GobgpClient(opts.paths.socket);
    const fib = bgpFibTarget(opts.config.router.spec);
    this.fib = fib.install ? new FibProgrammer({ target: fib, logger: opts.logger.child({ component: "fib" }), onApplied: () => opts.onFibProgress?.(), ...(opts.trace ? { trace: opts.trace } : {}) }) : undefined;
    this.redistributor = new Redistributor(this.client, opts.logger.child({ component: "redistribute" }), fib.protocol, (prefix) => this.reevaluate([prefix]));
    this.graceful = new GracefulRestartTracker((neighbor) => this.reevaluate(this.rib.sweepStale(neighbor)));
    this.bfd = new BfdManager({
      router: opts.config.router.name,
      paths: opts.bfdPaths,
      logger: opts.logger.child({ component: "bfd" }),
      ...(opts.bfddBinary !== undefined ? { binary: opts.bfddBinary } : {}),
      ...(opts.owner !== undefined ? { owner: opts.owner } : {}),
      keep: opts.keepCompanions === true,
      bgp: { disable: (a, why) => this.client.disablePeer(a, why).then(() => undefined), enable: (a) => this.client.enablePeer(a).then(() => undefined) },
      ...(opts.onBfdTransition !== undefined ? { onTransition: opts.onBfdTransition } : {}),
      onChange: () => opts.onChange?.(),
    });
    this.process.on("down", () => this.gobgpdDown());
    this.process.on("restarted", () => void this.bringUp(false));
  }

  async start(): Promise<void> {
    if (this.fib !== undefined) {
      // Monitor first, then dump: nothing that changes between the two is missed.
      const fib = this.fib;
      this.monitor = new RouteMonitor(fib.target, this.opts.logger.child({ component: "route-monitor" }), (c) => fib.observed(c.route, c.deleted), () => {
        if (this.stopping) return;
        void this.restartMonitor();
      });
      await this.monitor.start();
      await fib.loadKernel();
    }
    const attached = await this.process.start();
    await this.bringUp(attached);
  }

  /** gobgpd answers: apply the config, subscribe, and decide how the FIB catches up. */
  private async bringUp(attached: boolean): Promise<void> {
    if (this.stopping) return;
    try {
      await this.client.waitReady(10_000);
      this.attached = attached;
      this.gobgpdSince = Date.now();
      if (attached) {
        this.applied = appliedFromJson(readOptional(this.opts.appliedFile), this.process.pid ?? -1);
      } else {
        this.applied = emptyApplied();
        // A fresh gobgpd: no session is up, and the sweep waits until the set-up is through (phase Running).
        this.phase = "Starting";
        this.peers.allDown();
        this.rib.clear();
        // A fresh gobgpd has an empty RIB: keep what the kernel has until the sessions relearn it.
        this.fib?.retainUntilSweep();
        this.holdingSince = Date.now();
        this.waitFor = undefined;
        this.scheduleSweep();
      }
      await this.applyConfig();
      this.subscribe(attached);
      this.redistributor.reset();
      await this.redistributor.sync(this.config.router.spec);
      await this.bfd.configure(this.config.bfd);
      this.phase = "Running";
      this.lastError = "";
    } catch (err) {
      this.phase = "Failed";
      this.lastError = (err as Error).message;
      this.opts.logger.error({ err }, "gobgpd set-up failed");
    }
    this.opts.onChange?.();
  }

  async applyConfig(): Promise<ApplyReport> {
    const passwords = new Map<string, string>();
    for (const p of this.config.peers) passwords.set(p.name, await resolvePassword(p.spec));
    const desired = desiredBgp(this.config, passwords);
    const report = await applyDesired(this.client, desired, this.applied, this.opts.logger);
    if (report.restartRequired !== undefined) {
      // ASN, router ID or listen port changed: only a fresh gobgpd takes them (sessions restart).
      this.opts.logger.warn({ reason: report.restartRequired }, "restarting gobgpd for a global change");
      await this.process.stop();
      await this.process.start();
      await this.bringUp(false);
      return report;
    }
    this.lastApply = report;
    writeFileAtomic(this.opts.appliedFile, appliedToJson(this.applied, this.process.pid ?? -1));
    this.peers.configure(this.config, desired);
    // Neighbors or policies may have changed: every prefix is chosen again (unchanged ones write nothing).
    this.rib.configure(ribNeighbors(this.config), (p) => this.redistributor.originates(p));
    for (const gone of this.rib.neighborsNotIn(desired.neighbors)) this.rib.dropNeighbor(gone);
    this.reevaluate(this.rib.prefixes());
    return report;
  }

  /** A new config (reload): router-level FIB settings need a daemon restart; everything else is a diff. */
  async reconfigure(next: BgpConfig): Promise<ApplyReport> {
    const before = bgpFibTarget(this.config.router.spec);
    const after = bgpFibTarget(next.router.spec);
    if (before.install !== after.install || before.table !== after.table || before.metric !== after.metric) {
      throw new Error("fib settings (install, table, metric) changed: restart routerd-bgp to apply them");
    }
    this.config = next;
    const report = await this.applyConfig();
    await this.redistributor.sync(next.router.spec);
    await this.bfd.configure(next.bfd);
    this.opts.onChange?.();
    return report;
  }

  private async restartMonitor(): Promise<void> {
    await new Promise((r) => setTimeout(r, 200));
    if (this.stopping || this.monitor === undefined) return;
    await this.monitor.start();
    await this.fib?.resync();
  }

  /** Best paths of these prefixes → the FIB. */
  private reevaluate(prefixes: Iterable<string>): void {
    const fib = this.fib;
    if (fib === undefined) return;
    for (const p of prefixes) fib.update(p, this.rib.best(p));
  }

  private onPaths(paths: AdjInPath[]): void {
    this.lastPathAt = Date.now();
    this.pathEvents++;
    this.pathChanges += paths.length;
    if (this.opts.logger.isLevelEnabled("debug")) {
      const m = process.memoryUsage();
      this.opts.logger.debug({ paths: paths.length, events: this.pathEvents, total: this.pathChanges, rssMB: Math.round(m.rss / 1e6), heapMB: Math.round(m.heapUsed / 1e6), externalMB: Math.round(m.external / 1e6) }, "Adj-RIB-In event");
    }
    for (const p of paths) {
      this.rib.apply(p);
      this.graceful.heard(p.neighbor, this.lastPathAt);
      this.peers.heard(p.neighbor, this.lastPathAt);
    }
    this.reevaluate(paths.map((p) => p.prefix));
  }

  private onPeer(peer: Peer): void {
    const t = this.peers.observe(peer);
    if (t === undefined) return;
    if (this.ingest?.orderedSessions !== true) this.onSession(t.address, t.to === "Established");
    this.opts.onPeerTransition?.(t);
    this.opts.onChange?.();
  }

  private onSession(address: string, up: boolean): void {
    const gr = this.config.router.spec.gracefulRestart;
    if (!up && this.rib.hasPathsFrom(address)) {
      // GoBGP sends no withdraws for a lost session's paths: they go here, all in one FIB burst.
      const keep = gr?.enabled === true;
      this.reevaluate(this.rib.dropNeighbor(address, keep));
      if (keep) this.graceful.down(address, durationMsOr(gr?.restartTime, 120_000));
    } else if (up) this.graceful.up(address);
  }

  /**
   * Subscribes (a fresh ingest each time), then takes the table each Established neighbor's Adj-RIB-In
   * already holds (events arriving meanwhile are newer and applied after it). A fresh gobgpd starts empty
   * (its hold is already set up); one that kept running (re-attach, or a broken subscription) is
   * reconciled: see reconcile().
   */
  private subscribe(reconcile: boolean): void {
    void this.ingest?.close();
    const kind = this.ingestKind;
    const ingest: Ingest = INGESTS[kind]({ client: this.client, logger: this.opts.logger.child({ component: `ingest-${kind}` }), gobgpdPid: () => this.process.pid }, {
      onPeer: (peer) => this.ingest === ingest && this.onPeer(peer),
      onListed: (peers) => this.ingest === ingest && this.peers.sessionsUp(peers),
      onHeard: (neighbor) => this.peers.heard(neighbor, Date.now()),
      onTable: (tables, established) => this.ingest === ingest && this.onTable(tables, established, reconcile),
      onPaths: (paths) => this.ingest === ingest && this.onPaths(paths),
      onSession: (neighbor, up) => this.ingest === ingest && this.onSession(neighbor, up),
      onEnd: (err) => {
        if (this.stopping || this.ingest !== ingest) return;
        this.opts.logger.warn({ err: err?.message, ingest: kind }, "GoBGP subscription ended");
        // gobgpd died (its restart resubscribes) or the subscription broke: resubscribe while it runs.
        if (this.process.pid !== undefined) setTimeout(() => this.process.pid !== undefined && !this.stopping && this.ingest === ingest && this.subscribe(true), 500).unref();
      },
    });
    this.ingest = ingest;
  }

  private onTable(tables: AdjInPath[][], established: string[], reconcile: boolean): void {
    this.rib.clear();
    const heard = new Set<string>();
    for (const paths of tables) {
      for (const p of paths) {
        this.rib.apply(p);
        heard.add(p.neighbor);
      }
    }
    this.opts.logger.info({ neighbors: established.length, prefixes: this.rib.size, reconcile }, "Adj-RIB-In read");
    if (!reconcile) return this.reevaluate(this.rib.prefixes());
    // What the table held counts as heard now: the sweep waits until the neighbor is quiet after it.
    const listedAt = Date.now();
    for (const n of heard) this.peers.heard(n, listedAt);
    this.reconcile(new Set(established));
  }

  /**
   * The RIB of a gobgpd that kept running replaces the FIB's wants. Routes the kernel has and the RIB lacks
   * are not deleted at once — a session may still be re-sending its table (gobgpd or the session only just
   * came up): they are retained and swept by the same rule as after a fresh gobgpd (reattach.ts). A gobgpd
   * of long standing whose neighbors are long Established settles at the first sweep check: nothing
   * changes in the kernel but what the RIB really lost.
   */
  private reconcile(established: ReadonlySet<string>): void {
    const fib = this.fib;
    if (fib === undefined) return;
    fib.retainUntilSweep();
    this.reevaluate(this.rib.prefixes());
    const hold = reattachHold({
      now: Date.now(),
      gobgpdStartedAt: this.process.since,
      staleHoldMs: this.opts.staleHoldMs ?? 120_000,
      neighbors: this.peers.list().map((v) => ({ address: v.address, established: established.has(v.address) })),
    });
    this.holdingSince = hold.holdingSince;
    this.waitFor = hold.waitFor;
    this.opts.logger.info({ retained: fib.stats.retained, waitFor: [...hold.waitFor], gobgpdYoung: hold.young, holdingSince: new Date(hold.holdingSince).toISOString() }, "re-attached: routes the RIB lacks kept until the sessions have relearned");
    this.scheduleSweep();
  }

  private gobgpdDown(): void {
    this.phase = "GobgpdDown";
    void this.ingest?.close();
    this.ingest = undefined;
    this.peers.allDown();
    // Its RIB is gone with it; the FIB stays as it is until the restarted gobgpd has relearned it.
    this.rib.clear();
    this.graceful.stop();
    this.opts.onChange?.();
  }

  /** Drops retained routes once the sessions have relearned the RIB, or after staleHoldMs regardless. */
  private scheduleSweep(): void {
    clearInterval(this.sweepTimer);
    const hold = this.opts.staleHoldMs ?? 120_000;
    const quiet = this.opts.quietMs ?? 1000;
    this.sweepTimer = setInterval(() => {
      const now = Date.now();
      // Each neighbor must have re-sent its table: a sweep before its paths arrived would blackhole them.
      // (Not before the set-up is through: until the config is applied the neighbor table is empty.)
      const settled = this.phase === "Running" && this.peers.relearned(now, quiet, SILENT_NEIGHBOR_MS, this.waitFor);
      if (settled || now - this.holdingSince >= hold) {
        clearInterval(this.sweepTimer);
        const dropped = this.fib?.sweep() ?? 0;
        this.opts.logger.info({ dropped, settled }, "stale FIB routes swept");
      }
    }, 250);
    this.sweepTimer.unref();
  }

  /**
   * Received/accepted/advertised counts from gobgpd. The advertised count costs gobgpd a pass of its export
   * over the whole table in its main loop (ListPeer enableAdvertised: 100k path copies, and no UPDATE is
   * read meanwhile), so the periodic poll (`quietOnly`) asks for it only when no path arrived since the last
   * poll: a table load is not held up by it (docs/performance.md, BGP, session 7). Otherwise it keeps the
   * last advertised count.
   */
  async refreshPeers(quietOnly = false): Promise<void> {
    if (this.process.pid === undefined) return;
    const advertised = !quietOnly || this.pathEvents === this.eventsAtLastCount;
    this.eventsAtLastCount = this.pathEvents;
    this.peers.counts(await this.client.listPeers("", advertised), advertised);
  }

  /**
   * keepGobgpd: leave gobgpd and the FIB as they are, so a restarted routerd-bgp re-attaches without a
   * blackhole. Otherwise gobgpd stops (sessions close; the FIB routes stay until routerd cleans them up).
   */
  async stop(keepGobgpd: boolean): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweepTimer);
    this.graceful.stop();
    this.redistributor.stop();
    this.monitor?.stop();
    await this.ingest?.close();
    await this.fib?.idle();
    this.fib?.close();
    await this.bfd.shutdown(keepGobgpd);
    if (keepGobgpd) this.process.detach();
    else await this.process.stop();
    this.client.close();
  }
}
