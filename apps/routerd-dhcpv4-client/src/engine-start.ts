// The light half of the daemon form: the engine and its reporter, started before the daemon kit so the
// first DISCOVER leaves without waiting for gRPC and pino to load (about 150 ms on a small router). Only
// Node built-ins and the engine's own modules are loaded here; daemon.ts adds the kit afterwards.
import { mkdirSync } from "node:fs";
import { connect } from "node:net";
import { DhcpV4Client, type DhcpV4ClientOptions } from "./client.js";
import { formatMac } from "./interface-info.js";
import { LeaseReporter } from "./lease-reporter.js";
import type { EngineLogger } from "./line-logger.js";
import { socketPathOf, stateDirOf } from "./names.js";

export interface EngineStartOptions {
  instance: string;
  runDir: string;
  /** Base state dir; the engine's lease.json goes to <stateDir>/dhcpv4-client/<instance>/ (the kit's dir). */
  stateDir: string;
  logger: EngineLogger;
  client: Omit<DhcpV4ClientOptions, "stateDir" | "logger">;
  now?: () => number;
}

export interface StartedEngine {
  instance: string;
  client: DhcpV4Client;
  reporter: LeaseReporter;
  socketPath: string;
  stateDir: string;
}

export class AlreadyRunningError extends Error {
  constructor(readonly socketPath: string) {
    super(`another routerd-dhcpv4-client answers on ${socketPath}`);
    this.name = "AlreadyRunningError";
  }
}

/** True when something accepts connections on the Unix socket (a live daemon; a stale file refuses). */
export function socketAnswers(path: string, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    const done = (answer: boolean) => {
      clearTimeout(timer);
      s.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(true), timeoutMs); // a listener too busy to accept is still alive
    s.once("connect", () => done(true));
    s.once("error", () => done(false));
  });
}

/**
 * Starts the engine for one instance: refuses when a daemon already answers on the instance's socket
 * (the kit checks again, atomically, when it binds), then sends the first DISCOVER or INIT-REBOOT REQUEST.
 */
export async function startEngine(opts: EngineStartOptions): Promise<StartedEngine> {
  const socketPath = socketPathOf(opts.runDir, opts.instance);
  if (await socketAnswers(socketPath)) throw new AlreadyRunningError(socketPath);
  const stateDir = stateDirOf(opts.stateDir, opts.instance);
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const client = new DhcpV4Client({ ...opts.client, stateDir, logger: opts.logger });
  const identity = () => {
    const info = client.getInterface();
    return { interface: opts.client.interface, hardwareAddress: info ? formatMac(info.mac) : "", clientId: client.getClientId() };
  };
  const reporter = new LeaseReporter(opts.instance, identity, opts.now);
  client.on("event", (e) => reporter.onEvent(e));
  client.on("state", (s) => reporter.onState(s));
  await client.start();
  return { instance: opts.instance, client, reporter, socketPath, stateDir };
}
