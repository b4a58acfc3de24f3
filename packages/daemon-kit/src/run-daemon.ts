// runDaemon: the lifecycle every routerd daemon shares. Start: lock, socket checks, state and event
// recovery, gRPC server, Running, systemd readiness. Stop: abort, onStop, close streams and server,
// remove the socket, flush state, all within one timeout.
import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { Server } from "@grpc/grpc-js";
import { FileLock, LockBusyError } from "@routerd/resource";
import { DEFAULT_RUN_DIR, DEFAULT_STATE_DIR, DaemonService, HealthService, daemonSocketPath, daemonStateDir } from "@routerd/rpc";
import { Operation } from "@routerd/telemetry";
import { pino, type Logger } from "pino";
import { RELOAD_COMMAND, commandNames, runCommand } from "./commands.js";
import { DaemonStartError } from "./errors.js";
import { EventBus } from "./event-bus.js";
import { EventLog, recoverEvents } from "./event-log.js";
import { daemonServer } from "./grpc/daemon-service.js";
import { HealthState, healthServer } from "./grpc/health-service.js";
import { toProtoStatus } from "./grpc/proto-mapping.js";
import { serviceName, shutdownServer, startServer } from "./grpc/server.js";
import { StreamRegistry } from "./grpc/stream-registry.js";
import { IdleCollector, idleGcSetting } from "./idle-gc.js";
import { lifecycle } from "./lifecycle.js";
import type { DaemonContext, DaemonHandle, RunDaemonOptions } from "./options.js";
import { prepareSocketPath, removeOwnSocket, resolveGroup, secureSocket } from "./socket-file.js";
import { StatusModel } from "./status-model.js";
import { StateKeeper, loadState } from "./state-file.js";
import { notifyReady } from "./systemd-notify.js";
import { daemonTelemetry, type DaemonTelemetry } from "./telemetry.js";
import type { JsonObject, JsonValue, Severity } from "./types.js";

const LOG_LEVEL: Record<Severity, "debug" | "info" | "warn" | "error"> = {
  debug: "debug",
  info: "info",
  warning: "warn",
  error: "error",
};

function paths(options: RunDaemonOptions): { socketPath: string; stateDir: string } {
  try {
    return {
      socketPath: daemonSocketPath(options.runDir ?? DEFAULT_RUN_DIR, options.name, options.instance),
      stateDir: daemonStateDir(options.stateDir ?? DEFAULT_STATE_DIR, options.name, options.instance),
    };
  } catch (err) {
    throw new DaemonStartError("INVALID_OPTIONS", (err as Error).message, undefined, { cause: err });
  }
}

/** Starts a daemon and resolves once it serves; rejects with DaemonStartError when it cannot. */
export async function runDaemon(options: RunDaemonOptions): Promise<DaemonHandle> {
  const { socketPath, stateDir } = paths(options);
  if (options.commands && Object.hasOwn(options.commands, RELOAD_COMMAND)) {
    throw new DaemonStartError("INVALID_OPTIONS", `"${RELOAD_COMMAND}" is built in: pass onReload instead of a reload command`);
  }
  const now = options.now ?? (() => new Date());
  const logger: Logger = (options.logger ?? pino({ name: `routerd-${options.name}` })).child({
    daemon: options.name,
    instance: options.instance,
  });
  const gid = options.socketGroup === undefined ? undefined : await resolveGroup(options.socketGroup);
  const socketMode = options.socketMode ?? (gid === undefined ? 0o600 : 0o660);

  // Two starts racing for one socket: the loser sees a live lock holder and refuses.
  let lock: FileLock;
  try {
    mkdirSync(dirname(socketPath), { recursive: true, mode: 0o755 });
    lock = FileLock.acquire(`${socketPath}.lock`, 0);
  } catch (err) {
    if (!(err instanceof LockBusyError)) throw err;
    throw new DaemonStartError("ALREADY_RUNNING", `another instance is starting on ${socketPath} (pid ${err.holderPid ?? "?"})`, socketPath);
  }

  let eventLog: EventLog | undefined;
  let telemetry: DaemonTelemetry | undefined;
  let server: Server | undefined;
  try {
    const preparation = await prepareSocketPath(socketPath);
    if (preparation === "stale-removed") logger.warn({ socket: socketPath }, "removed stale socket");

    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const loaded = loadState(stateDir, now());
    if (loaded.error) logger.error({ err: loaded.error, movedTo: loaded.quarantined }, "unreadable state file moved aside");
    const eventOptions = options.events ?? {};
    const ringSize = eventOptions.ringSize ?? 1000;
    const recovered = recoverEvents(stateDir, eventOptions.keep ?? 3, ringSize);
    eventLog = new EventLog(stateDir, eventOptions);

    const bus = new EventBus({
      ringSize,
      lastSeq: Math.max(recovered.lastSeq, loaded.document?.lastEventSeq ?? 0),
      seed: recovered.recent,
      log: eventLog,
      now,
      onError: (err, where) => logger.error({ err, where }, "event delivery failed"),
    });
    bus.subscribe((e) =>
      logger[LOG_LEVEL[e.severity]]({ seq: e.seq, topic: e.topic, resource: e.resource, event: e.message, attributes: e.attributes }, "daemon event"),
    );
    // The ObservabilityPipeline: the caller's (serve), or the one serve configured for this daemon.
    telemetry = options.telemetry ? undefined : daemonTelemetry({ daemon: options.name, instance: options.instance }, options.logger ?? logger, options.env ?? process.env);
    const pipeline = options.telemetry ?? telemetry?.pipeline;
    if (pipeline) bus.subscribe((e) => pipeline.event(e));
    const liveDetails = (): JsonObject => ({
      ...(pipeline?.active ? { telemetry: pipeline.stats() as unknown as JsonValue } : {}),
      ...options.liveDetails?.(),
    });

    const state = new StateKeeper(stateDir, loaded.document?.data ?? null, {
      daemon: options.name,
      instance: options.instance,
      snapshot: () => ({ lastEventSeq: bus.lastSeq, status: model.persisted() }),
      delayMs: options.stateFlushDelayMs ?? 50,
      now,
      onError: (err) => logger.error({ err, stateDir }, "state write failed"),
    });

    let health: HealthState | undefined;
    const model: StatusModel = new StatusModel(
      {
        onPhase: (phase, previous) => {
          health?.changed();
          if (previous !== "Starting" && phase !== "Stopping") {
            bus.emit({ topic: "daemon.phase", severity: phase === "Degraded" ? "warning" : "info", message: `phase ${phase}`, attributes: { phase, previous } });
          }
        },
        onCondition: (resource, { condition, previous, transitioned }) => {
          if (!transitioned) return;
          bus.emit({
            topic: "status.condition",
            resource,
            message: `${condition.type} is ${condition.status}${condition.reason ? `: ${condition.reason}` : ""}`,
            attributes: { type: condition.type, status: condition.status, reason: condition.reason, previous: previous?.status ?? "" },
          });
        },
        onChange: () => state.schedule(),
      },
      now,
      loaded.document?.status,
    );

    const controller = new AbortController();
    const ctx: DaemonContext = {
      name: options.name,
      instance: options.instance,
      socketPath,
      stateDir,
      logger,
      signal: controller.signal,
      status: model,
      events: { emit: (input) => bus.emit(input) },
      trace: (span) => pipeline?.trace(span),
      state: {
        get data() {
          return state.data;
        },
        save: (next: JsonValue) => state.save(next),
      },
    };

    let reloading: Promise<void> = Promise.resolve();
    const reload = (): Promise<void> => {
      const run = async (): Promise<void> => {
        // Every daemon's reload (SIGHUP, the reload command) is one span: routerd-dns-resolver's config reloads.
        const op = new Operation(`${options.name}.reload`, { "routerd.instance": options.instance });
        try {
          await options.onReload?.(ctx);
          bus.emit({ topic: "daemon.reloaded", message: "reloaded" });
          ctx.trace(op.finish());
        } catch (err) {
          ctx.trace(op.finish({}, (err as Error).message ?? String(err)));
          logger.error({ err }, "reload failed");
          bus.emit({ topic: "daemon.reload.failed", severity: "error", message: (err as Error).message ?? String(err) });
          throw err;
        }
      };
      const next = reloading.then(run, run);
      reloading = next.catch(() => undefined);
      return next;
    };

    const handlers = options.commands ?? {};
    const streams = new StreamRegistry();
    const startedAt = now().toISOString();
    const extras = typeof options.services === "function" ? options.services(ctx) : (options.services ?? []);
    health = new HealthState(
      new Set([serviceName(DaemonService), ...extras.map((b) => serviceName(b.definition))]),
      () => model.health,
    );
    const started = await startServer(socketPath, [
      {
        definition: DaemonService,
        implementation: daemonServer({
          status: () =>
            toProtoStatus({
              daemon: options.name,
              instance: options.instance,
              pid: process.pid,
              phase: model.phase,
              health: model.health,
              startedAt,
              conditions: model.conditions(),
              resources: model.resources(),
              details: { ...model.details, ...liveDetails() },
              commands: commandNames(handlers),
              lastEventSeq: bus.lastSeq,
              memory: process.memoryUsage(),
            }),
          events: bus,
          command: (name, args) => runCommand({ handlers, reload, ctx, logger, emit: (e) => bus.emit(e) }, name, args),
          streams,
          maxQueuedEvents: ringSize + 256,
        }),
      },
      { definition: HealthService, implementation: healthServer(health, streams) },
      ...extras,
    ]);
    server = started;
    await secureSocket(socketPath, socketMode, gid);
    const socketIno = statSync(socketPath).ino;
    lock.release();

    model.setLifecycle("Up");
    bus.emit({
      topic: "daemon.started",
      message: "started",
      attributes: { pid: process.pid, socket: socketPath, resumedSeq: recovered.lastSeq, resumedState: loaded.document !== undefined },
    });
    state.flush();
    logger.info({ socket: socketPath, stateDir, lastEventSeq: bus.lastSeq, resumed: loaded.document !== undefined }, "daemon listening");

    const stop = lifecycle({
      options,
      logger,
      controller,
      ctx,
      onStopping: (reason) => {
        model.setLifecycle("Stopping");
        bus.emit({ topic: "daemon.stopping", message: `stopping: ${reason}`, attributes: { reason } });
      },
      closeServer: async (timeoutMs) => {
        streams.closeAll();
        const graceful = await shutdownServer(started, timeoutMs);
        await removeOwnSocket(socketPath, socketIno);
        return graceful;
      },
      flush: () => {
        state.flush();
        eventLog?.close();
        void telemetry?.close();
      },
      reload,
    });

    const idleGc = idleGcSetting(options.env ?? process.env, options.idleGc);
    if (idleGc) {
      const collector = new IdleCollector(idleGc).start();
      void stop.done.finally(() => collector.stop());
    }

    void notifyReady(`${options.name}@${options.instance} running`, {
      env: options.env,
      onError: (err) => logger.warn({ err }, "systemd readiness notification failed"),
    });

    return { ...ctx, done: stop.done, stop: stop.stop, reload };
  } catch (err) {
    if (server) {
      server.forceShutdown();
      await removeOwnSocket(socketPath, statSync(socketPath, { throwIfNoEntry: false })?.ino).catch(() => undefined);
    }
    eventLog?.close();
    void telemetry?.close();
    lock.release();
    throw err;
  }
}
