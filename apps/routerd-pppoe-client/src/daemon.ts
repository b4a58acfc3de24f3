// The daemon wiring: the session manager inside runDaemon(). The socket serves the common Daemon service
// (the session as one resource named after the instance, pppoe.session.* events, the redial command and the
// hooks' pppd-hook command) and routerd.pppoe.v1.Sessions. The daemon never configures routes or DNS:
// routerd core reads the resource and applies the session as artifacts it owns.
import { runDaemon, type DaemonContext, type DaemonHandle } from "@routerd/daemon-kit";
import { SessionsService } from "@routerd/rpc/gen/routerd/pppoe/v1/pppoe";
import { traceStage } from "@routerd/resource";
import type { Logger } from "pino";
import { loadSessionConfig, type SessionConfig } from "./config.js";
import { sessionsServer } from "./grpc-service.js";
import { DAEMON_NAME, HOOK_COMMAND, RESOURCE_KIND } from "./names.js";
import { pppdPaths } from "./pppd/launch.js";
import { readEarlyPid, type EarlyDial } from "./session/early-dial.js";
import type { BackoffPolicy } from "./session/backoff.js";
import { SessionManager } from "./session/manager.js";
import { HOLDING_PHASE, sessionDetails, sessionEvents, sessionMessage, sessionView } from "./status-view.js";

export interface PppoeDaemonOptions {
  /** Absolute path of the JSON config; re-read on reload. */
  configPath: string;
  instance: string;
  runDir?: string;
  stateDir?: string;
  logger?: Logger;
  /** pppd's `debug`. */
  debug?: boolean;
  /** The program pppd's hooks run (this daemon's launcher) and the Node that runs it. */
  program: string;
  node?: string;
  handleSignals?: boolean;
  signal?: AbortSignal;
  policy?: BackoffPolicy;
  /** The first dial, started before the daemon loaded its machinery (early-dial.ts): adopted, not redone. */
  early?: EarlyDial;
}

export interface PppoeDaemon {
  daemon: DaemonHandle;
  session: SessionManager;
}

type Ctx = Pick<DaemonContext, "status" | "events" | "instance">;

function publish(ctx: Ctx, session: SessionManager): void {
  const view = sessionView(ctx.instance, session.currentConfig, session.current);
  ctx.status.setResource(ctx.instance, { kind: RESOURCE_KIND, phase: view.phase, message: sessionMessage(view), details: sessionDetails(view) });
  ctx.status.setResourceCondition(ctx.instance, {
    type: "SessionUp",
    status: view.phase === HOLDING_PHASE ? "True" : "False",
    reason: view.phase === HOLDING_PHASE ? "Up" : view.lastEndReason || "Connecting",
    message: sessionMessage(view),
  });
  ctx.status.setPhase(view.phase === HOLDING_PHASE || view.phase === "Connecting" ? "Running" : "Degraded");
}

function savedPid(data: unknown): number | undefined {
  const pid = (data as { pppdPid?: unknown } | null)?.pppdPid;
  return typeof pid === "number" && Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Loads the config (ConfigError when invalid), starts the daemon (DaemonStartError), then dials or adopts the
 * early dial's pppd. A start that fails hangs the early pppd up: nobody would follow it.
 */
export async function startPppoeDaemon(opts: PppoeDaemonOptions): Promise<PppoeDaemon> {
  try {
    return await startDaemon(opts);
  } catch (err) {
    if (opts.early) {
      opts.early.running.child.kill("SIGTERM");
      await opts.early.running.exited;
      opts.early.adopted();
    }
    throw err;
  }
}

async function startDaemon(opts: PppoeDaemonOptions): Promise<PppoeDaemon> {
  const { early } = opts;
  const initial: SessionConfig = await loadSessionConfig(opts.configPath);
  traceStage("pppoe-client: config loaded");
  let session: SessionManager | undefined;
  let ctxRef: Ctx | undefined;
  const daemon = await runDaemon({
    name: DAEMON_NAME,
    instance: opts.instance,
    ...(opts.runDir !== undefined ? { runDir: opts.runDir } : {}),
    ...(opts.stateDir !== undefined ? { stateDir: opts.stateDir } : {}),
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
    ...(opts.handleSignals !== undefined ? { handleSignals: opts.handleSignals } : {}),
    ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
    services: (ctx) => {
      ctxRef = ctx;
      session = new SessionManager({
        instance: opts.instance,
        // What the running pppd was dialed with; a newer file is applied below as a reconfigure.
        config: early?.config ?? initial,
        paths: pppdPaths(ctx.stateDir),
        hook: { node: opts.node ?? process.execPath, program: opts.program, socket: ctx.socketPath },
        logger: ctx.logger,
        debug: opts.debug ?? false,
        ...(opts.policy ? { policy: opts.policy } : {}),
        savePid: (pid) => ctx.state.save(pid === undefined ? null : { pppdPid: pid }),
        onChange: (prev, next, h) => {
          for (const e of sessionEvents(prev, next, h, session?.currentConfig.ifname ?? initial.ifname)) ctx.events.emit({ ...e, resource: ctx.instance });
          if (session) publish(ctx, session);
        },
      });
      return [{ definition: SessionsService, implementation: sessionsServer(() => sessionView(ctx.instance, session!.currentConfig, session!.current)) }];
    },
    commands: {
      redial: () => {
        session?.redial();
        return { message: `redialling (phase ${session?.current.phase})` };
      },
      [HOOK_COMMAND]: (args) => {
        traceStage(`pppoe-client: hook ${args.event} reported`);
        session?.hook(args);
        return { message: `${args.event} recorded` };
      },
    },
    onReload: async () => {
      const next = await loadSessionConfig(opts.configPath);
      if (session?.reconfigure(next) && ctxRef) ctxRef.events.emit({ topic: "pppoe.session.reconfigured", message: "config changed: redialling", resource: opts.instance });
    },
    onStop: () => session?.stop(),
  });
  if (session === undefined) {
    await daemon.stop("session service was not set up");
    throw new Error("session service was not set up");
  }
  traceStage("pppoe-client: socket up");
  publish(daemon, session);
  await session.start([savedPid(daemon.state.data), readEarlyPid(daemon.stateDir)], early);
  if (early) {
    early.adopted();
    // The file may have changed (and a SIGHUP gone by) since the early dial read it.
    if (session.reconfigure(await loadSessionConfig(opts.configPath))) daemon.events.emit({ topic: "pppoe.session.reconfigured", message: "config changed while dialing: redialling", resource: opts.instance });
  }
  return { daemon, session };
}
