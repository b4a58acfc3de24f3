// The daemon wiring, shared by main.ts and the tests: config file → ProbeManager inside runDaemon(), the
// Probes gRPC service next to the kit's, reload (SIGHUP / "reload") re-reading the file.
import { join } from "node:path";
import { runDaemon, type DaemonContext, type DaemonHandle } from "@routerd/daemon-kit";
import { ProbesService } from "@routerd/rpc/gen/routerd/healthcheck/v1/healthcheck";
import type { Logger } from "pino";
import { loadHealthcheckConfig, type HealthcheckConfig } from "./config.js";
import { probesServer } from "./grpc-service.js";
import { ProbeManager, type ManagerOptions } from "./manager.js";
import { refreshPhase } from "./probe-status.js";
import { DAEMON_NAME, DEFAULT_INSTANCE } from "./names.js";
import { VerdictFiles } from "./verdicts.js";

export interface HealthcheckDaemonOptions {
  /** Absolute path of the JSON config; re-read on reload. */
  configPath: string;
  instance?: string;
  runDir?: string;
  stateDir?: string;
  logger?: Logger;
  /** Default true; tests running in-process turn it off. */
  handleSignals?: boolean;
  signal?: AbortSignal;
  /** Test seams and tuning passed to the ProbeManager. */
  manager?: Omit<ManagerOptions, "ctx">;
}

export interface HealthcheckDaemon {
  daemon: DaemonHandle;
  manager: ProbeManager;
}

/** <state-dir>/healthcheck/<instance>/verdicts/<probe>: each probe's state as one line. */
export const VERDICT_DIR = "verdicts";

type Ctx = Pick<DaemonContext, "status" | "events">;

function applyConfig(ctx: Ctx, manager: ProbeManager, config: HealthcheckConfig, path: string): void {
  const s = manager.apply(config);
  const n = config.probes.length;
  ctx.status.setCondition({ type: "ConfigLoaded", status: "True", reason: "Loaded", message: `${n} probe(s) from ${path}` });
  ctx.status.setDetails({ config: path, probes: n });
  refreshPhase(ctx.status);
  ctx.events.emit({
    topic: "healthcheck.config.applied",
    message: `${n} probe(s): ${s.added.length} added, ${s.removed.length} removed, ${s.retargeted.length} retargeted, ${s.retimed.length} retimed`,
    attributes: {
      added: s.added.join(","),
      removed: s.removed.join(","),
      retargeted: s.retargeted.join(","),
      retimed: s.retimed.join(","),
      unchanged: s.unchanged.join(","),
    },
  });
}

/** Loads the config (ConfigError when invalid), starts the daemon (DaemonStartError) and its probes. */
export async function startHealthcheckDaemon(opts: HealthcheckDaemonOptions): Promise<HealthcheckDaemon> {
  const { configPath } = opts;
  const initial = await loadHealthcheckConfig(configPath);
  let manager: ProbeManager | undefined;
  const daemon = await runDaemon({
    name: DAEMON_NAME,
    instance: opts.instance ?? DEFAULT_INSTANCE,
    ...(opts.runDir !== undefined ? { runDir: opts.runDir } : {}),
    ...(opts.stateDir !== undefined ? { stateDir: opts.stateDir } : {}),
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
    ...(opts.handleSignals !== undefined ? { handleSignals: opts.handleSignals } : {}),
    ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
    services: (ctx) => {
      manager = new ProbeManager({ verdicts: new VerdictFiles(join(ctx.stateDir, VERDICT_DIR)), ...opts.manager, ctx });
      return [{ definition: ProbesService, implementation: probesServer(() => manager) }];
    },
    onReload: async (ctx) => {
      let next: HealthcheckConfig;
      try {
        next = await loadHealthcheckConfig(configPath);
      } catch (err) {
        // The probes of the last good config keep running.
        ctx.status.setCondition({ type: "ConfigLoaded", status: "False", reason: "Invalid", message: (err as Error).message });
        refreshPhase(ctx.status);
        throw err;
      }
      if (manager !== undefined) applyConfig(ctx, manager, next, configPath);
    },
    onStop: () => manager?.stop(),
  });
  if (manager === undefined) {
    await daemon.stop("probe service was not set up");
    throw new Error("probe service was not set up");
  }
  applyConfig(daemon, manager, initial, configPath);
  return { daemon, manager };
}
