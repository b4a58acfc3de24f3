// The daemon form: a started engine inside runDaemon(). The socket serves the common Daemon service (the
// lease as one resource named after the instance, dhcpv4.lease.* events, the renew and release commands)
// and routerd.dhcpv4.v1.Dhcpv4 (GetLease). The client never configures the interface: routerd core reads
// the resource and applies the lease as artifacts it owns.
import { runDaemon, type DaemonHandle } from "@routerd/daemon-kit";
import { Dhcpv4Service } from "@routerd/rpc/gen/routerd/dhcpv4/v1/dhcpv4";
import type { Logger } from "pino";
import type { DhcpV4Client } from "./client.js";
import { startEngine, type EngineStartOptions, type StartedEngine } from "./engine-start.js";
import { dhcpv4Server } from "./grpc-service.js";
import { DAEMON_NAME } from "./names.js";

export interface ServeOptions {
  runDir: string;
  stateDir: string;
  /** The kit's logger; default pino({ name: "routerd-dhcpv4-client" }). */
  logger?: Logger;
  /** Send DHCPRELEASE when the daemon stops; default true. */
  releaseOnStop?: boolean;
  /** Default true; in-process tests turn it off. */
  handleSignals?: boolean;
  signal?: AbortSignal;
}

/** Puts a started engine behind the daemon kit. On a start error (DaemonStartError) the engine is stopped without a release. */
export async function serveEngine(engine: StartedEngine, opts: ServeOptions): Promise<DaemonHandle> {
  const { client, reporter } = engine;
  let daemon: DaemonHandle;
  try {
    daemon = await runDaemon({
      name: DAEMON_NAME,
      instance: engine.instance,
      runDir: opts.runDir,
      stateDir: opts.stateDir,
      ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
      ...(opts.handleSignals !== undefined ? { handleSignals: opts.handleSignals } : {}),
      ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
      services: () => [{ definition: Dhcpv4Service, implementation: dhcpv4Server(() => reporter.view()) }],
      commands: {
        renew: () => {
          client.renew();
          return { message: `renew requested (state ${client.getPhase()})` };
        },
        release: async () => {
          await client.release();
          return { message: `state ${client.getPhase()}; send "renew" to acquire a lease again` };
        },
      },
      onStop: async () => {
        await client.stop({ release: opts.releaseOnStop ?? true });
        reporter.close();
      },
    });
  } catch (err) {
    // Another instance owns the socket (or it could not be bound): this one must not hold on to anything.
    await client.stop({ release: false });
    reporter.close();
    throw err;
  }
  reporter.attach(daemon);
  return daemon;
}

export interface Dhcpv4DaemonOptions extends Omit<EngineStartOptions, "logger">, Omit<ServeOptions, "logger" | "releaseOnStop"> {
  logger: Logger;
}

export interface Dhcpv4Daemon {
  daemon: DaemonHandle;
  client: DhcpV4Client;
}

/** Engine then kit, in one call (in-process use and tests); main.ts does the same with a lighter logger first. */
export async function startDhcpv4Daemon(opts: Dhcpv4DaemonOptions): Promise<Dhcpv4Daemon> {
  const engine = await startEngine(opts);
  const daemon = await serveEngine(engine, { ...opts, releaseOnStop: opts.client.releaseOnStop ?? true });
  return { daemon, client: engine.client };
}
