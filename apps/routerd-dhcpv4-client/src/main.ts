// Entry point. With --instance: the daemon form routerd runs (socket, status, events, GetLease). Without:
// the standalone form, one client whose lease events are lines on stdout (debugging, benchmarks).
// Either way the client reports leases only: applying the address is routerd core's job.
// Only the engine is loaded before the first DISCOVER; the daemon kit, gRPC and pino follow.
// Exit codes: 0 stopped cleanly, 1 failure, 2 bad command line, 75 another instance is running.
import type { DaemonHandle } from "@routerd/daemon-kit";
import { exitWith } from "@routerd/daemon-kit/cli";
import { parseCliArgs, USAGE, type CliConfig } from "./cli-args.js";
import { DhcpV4Client } from "./client.js";
import { AlreadyRunningError, startEngine, type StartedEngine } from "./engine-start.js";
import { eventLine } from "./event-line.js";
import { lineLogger } from "./line-logger.js";

const NAME = "routerd-dhcpv4-client";
/** A stuck send must not keep a supervisor waiting forever. */
const STOP_TIMEOUT_MS = 5000;

/** How long the first exchange may hold back loading the daemon kit (and so the socket). */
const KIT_DELAY_MS = 250;

/** Resolves when the engine holds a lease or has given up on one, or after `ms`. */
function firstExchange(client: DhcpV4Client, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      client.off("event", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    client.on("event", done);
  });
}

/** Remembers SIGTERM/SIGINT that arrive before the kit installs its own handlers. */
function holdSignals(): { received: string | undefined; release(): void } {
  const held: { received: string | undefined; release(): void } = {
    received: undefined,
    release: () => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
    },
  };
  function onSignal(signal: string): void {
    held.received ??= signal;
  }
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  return held;
}

async function runDaemonForm(cfg: CliConfig, d: { instance: string; runDir: string }): Promise<number> {
  const early = lineLogger({ name: NAME, level: cfg.logLevel, fd: 1 });
  const held = holdSignals();
  let engine: StartedEngine;
  try {
    engine = await startEngine({ instance: d.instance, runDir: d.runDir, stateDir: cfg.stateDir, logger: early, client: cfg.client });
  } catch (err) {
    held.release();
    early.fatal({ err: (err as Error).message }, "cannot start");
    return err instanceof AlreadyRunningError ? 75 : 1;
  }
  const { client } = engine;
  process.on("SIGUSR1", () => client.renew());
  // Evaluating the kit's modules (gRPC mostly) blocks the event loop for tens of ms: let the first exchange
  // finish first, unless the server is slow to answer.
  await firstExchange(client, KIT_DELAY_MS);
  if (held.received) {
    // Told to stop before there was a socket to report on.
    held.release();
    await client.stop({ release: cfg.client.releaseOnStop ?? true });
    return 0;
  }
  const [{ serveEngine }, { pino }, { DaemonStartError }] = await Promise.all([import("./daemon.js"), import("pino"), import("@routerd/daemon-kit")]);
  const logger = pino({ name: NAME, level: cfg.logLevel });
  let daemon: DaemonHandle;
  try {
    daemon = await serveEngine(engine, { runDir: d.runDir, stateDir: cfg.stateDir, logger, releaseOnStop: cfg.client.releaseOnStop ?? true });
  } catch (err) {
    held.release();
    logger.fatal({ err, code: err instanceof DaemonStartError ? err.code : undefined }, "daemon failed to start");
    return err instanceof DaemonStartError && err.code === "ALREADY_RUNNING" ? 75 : 1;
  }
  held.release();
  if (held.received) void daemon.stop(held.received);
  const result = await daemon.done;
  return result.clean ? 0 : 1;
}

async function runStandalone(cfg: CliConfig): Promise<number> {
  const logger = lineLogger({ name: NAME, level: cfg.logLevel, fd: 2 });
  const client = new DhcpV4Client({ ...cfg.client, stateDir: cfg.stateDir, logger });
  client.on("event", (ev) => process.stdout.write(eventLine(ev, cfg.client.interface, cfg.json) + "\n"));
  try {
    await client.start();
  } catch (err) {
    logger.fatal({ err: (err as Error).message }, "cannot start");
    return 1;
  }
  return new Promise<number>((resolve) => {
    let stopping = false;
    const shutdown = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, "stopping");
      setTimeout(() => process.exit(1), STOP_TIMEOUT_MS).unref();
      client.stop().then(
        () => resolve(0),
        (err: Error) => {
          logger.error({ err: err.message }, "stop failed");
          resolve(1);
        },
      );
    };
    process.on("SIGTERM", () => shutdown("SIGTERM"));
    process.on("SIGINT", () => shutdown("SIGINT"));
    process.on("SIGUSR1", () => client.renew());
    process.on("SIGUSR2", () => void client.release());
  });
}

async function main(): Promise<number> {
  const parsed = parseCliArgs(process.argv.slice(2));
  if (!parsed.ok) {
    process.stderr.write(parsed.help ? parsed.error : `${NAME}: ${parsed.error}\n\n${USAGE}`);
    return parsed.help ? 0 : 2;
  }
  const cfg = parsed.config;
  return cfg.daemon ? runDaemonForm(cfg, cfg.daemon) : runStandalone(cfg);
}

exitWith(NAME, main());
