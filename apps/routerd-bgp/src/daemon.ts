// The daemon wiring, shared by main.ts and the tests: config file → BgpRouter inside runDaemon(), the Bgp
// gRPC service next to the kit's, reload (SIGHUP / "reload") applying the new config as a diff.
import { join } from "node:path";
import { durationMs } from "@routerd/api";
import { runDaemon, writeOwnerRecord, type DaemonContext, type DaemonHandle } from "@routerd/daemon-kit";
import { RT_PROTOS_PATH, rtProtosContent, writeFileAtomic } from "@routerd/resource";
import { BgpService } from "@routerd/rpc/gen/routerd/bgp/v1/bgp";
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import { loadBgpConfig } from "./config/config.js";
import { bgpServer } from "./grpc-service.js";
import type { BfdTransition } from "./bfd/manager.js";
import { bfddPaths, bgpStateDir, DAEMON_NAME, gobgpdPaths, OWNER_MATCH } from "./names.js";
import type { PeerTransition } from "./peers.js";
import { BgpRouter } from "./router.js";
import { publishStatus } from "./status.js";

export interface BgpDaemonOptions {
  configPath: string;
  instance: string;
  runDir?: string;
  stateDir?: string;
  root?: string;
  gobgpd?: string;
  bfdd?: string;
  keepGobgpd?: boolean;
  staleHoldMs?: number;
  /** How long gobgpd and bfdd outlive a routerd-bgp that died and was not restarted (default 60 s). */
  orphanGraceMs?: number;
  logger?: Logger;
  handleSignals?: boolean;
  signal?: AbortSignal;
}

export interface BgpDaemon {
  daemon: DaemonHandle;
  router: BgpRouter;
}

/** Registers routerd's protocol number with iproute2 (a file of its own under --root), so `ip route` names it. */
export function writeRtProtos(root: string): void {
  const path = join(root, RT_PROTOS_PATH);
  const content = rtProtosContent();
  let current: string | undefined;
  try {
    current = readFileSync(path, "utf8");
  } catch {
    current = undefined;
  }
  if (current !== content) writeFileAtomic(path, content);
}

function transitionEvent(ctx: Pick<DaemonContext, "events">, t: PeerTransition): void {
  ctx.events.emit({
    topic: "bgp.peer.state",
    resource: t.owner,
    severity: t.from === "Established" ? "warning" : t.to === "Established" ? "info" : "debug",
    message: `neighbor ${t.address}: ${t.from} → ${t.to}`,
    attributes: { address: t.address, from: t.from, to: t.to },
  });
}

function bfdEvent(ctx: Pick<DaemonContext, "events">, t: BfdTransition): void {
  ctx.events.emit({
    topic: "bfd.session.state",
    resource: t.name,
    severity: t.to === "down" ? "warning" : t.to === "up" ? "info" : "debug",
    message: `BFD to ${t.peer}: ${t.from} → ${t.to}${t.to === "down" && t.from === "up" ? " (BGP neighbor disabled)" : ""}`,
    attributes: { peer: t.peer, from: t.from, to: t.to, at: new Date(t.at).toISOString() },
  });
}

export async function startBgpDaemon(opts: BgpDaemonOptions): Promise<BgpDaemon> {
  const config = await loadBgpConfig(opts.configPath);
  const runDir = opts.runDir ?? "/run/routerd";
  const stateDir = opts.stateDir ?? "/var/lib/routerd";
  writeRtProtos(opts.root ?? "/");
  let router: BgpRouter | undefined;
  let ctxRef: DaemonContext | undefined;
  const known = new Set<string>();
  let statusTimer: NodeJS.Timeout | undefined;
  let statusDue = Infinity;
  // Status goes to state.json (written atomically, with fsync): session changes show within 100 ms,
  // FIB progress at most once a second, so a 100k-route load does not wait on the disk.
  const refresh = (delayMs = 100) => {
    if (ctxRef === undefined || router === undefined) return;
    const due = Date.now() + delayMs;
    if (statusTimer !== undefined && statusDue <= due) return;
    clearTimeout(statusTimer);
    statusDue = due;
    statusTimer = setTimeout(() => {
      statusTimer = undefined;
      statusDue = Infinity;
      if (ctxRef && router) publishStatus(ctxRef, router, known);
    }, delayMs);
    statusTimer.unref();
  };
  const daemon = await runDaemon({
    name: DAEMON_NAME,
    instance: opts.instance,
    runDir,
    stateDir,
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
    ...(opts.handleSignals !== undefined ? { handleSignals: opts.handleSignals } : {}),
    ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
    services: (ctx) => {
      ctxRef = ctx;
      // Written once the instance lock is ours: the keepers of a running gobgpd/bfdd now watch this process.
      const ownerFile = writeOwnerRecord(bgpStateDir(stateDir, opts.instance), OWNER_MATCH);
      router = new BgpRouter({
        owner: { file: ownerFile, match: OWNER_MATCH, graceMs: opts.orphanGraceMs ?? 60_000 },
        keepCompanions: opts.keepGobgpd === true,
        config,
        paths: gobgpdPaths(runDir, stateDir, opts.instance),
        bfdPaths: bfddPaths(runDir, stateDir, opts.instance),
        ...(opts.bfdd !== undefined ? { bfddBinary: opts.bfdd } : {}),
        onBfdTransition: (t) => bfdEvent(ctx, t),
        appliedFile: join(ctx.stateDir, "gobgpd-applied.json"),
        logger: ctx.logger,
        ...(opts.gobgpd !== undefined ? { gobgpdBinary: opts.gobgpd } : {}),
        ...(opts.staleHoldMs !== undefined ? { staleHoldMs: opts.staleHoldMs } : {}),
        onPeerTransition: (t) => transitionEvent(ctx, t),
        onChange: () => refresh(100),
        onFibProgress: () => refresh(1000),
        trace: ctx.trace,
      });
      return [{ definition: BgpService, implementation: bgpServer(() => router) }];
    },
    onReload: async (ctx) => {
      const next = await loadBgpConfig(opts.configPath);
      const report = await router!.reconfigure(next);
      ctx.events.emit({
        topic: "bgp.config.applied",
        message: `${report.added.length} neighbor(s) added, ${report.updated.length} updated, ${report.removed.length} removed`,
        attributes: { added: report.added.join(","), updated: report.updated.join(","), removed: report.removed.join(",") },
      });
    },
    onStop: async () => {
      clearTimeout(statusTimer);
      await router?.stop(opts.keepGobgpd === true);
    },
  });
  if (router === undefined) throw new Error("BGP service was not set up");
  await router.start();
  const poll = durationMs(config.router.spec.watcher?.pollInterval ?? "5s");
  const timer = setInterval(() => {
    router!.refreshPeers(true).then(() => refresh(100), () => undefined);
  }, poll);
  timer.unref();
  daemon.done.finally(() => clearInterval(timer));
  publishStatus(daemon, router, known);
  return { daemon, router };
}
