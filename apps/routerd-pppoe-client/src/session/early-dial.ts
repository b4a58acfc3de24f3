// The first dial, started before the daemon loads gRPC and its logger: on a small box (and more so under
// emulation) those take seconds, and pppd's discovery, LCP, authentication and IPCP can run meanwhile. The
// session manager adopts this pppd once the daemon serves (manager.ts `start`); pppd's hooks retry until the
// socket is there. Light imports only (no gRPC, no pino).
//
// Safety: a lock in the instance's state directory, held for the process's life, keeps a second copy of the
// daemon from dialing too. Until the daemon follows pppd, pppd is recorded as the daemon's companion
// (daemon-kit/companions): a daemon that dies before that leaves a record both the next daemon and serve's
// supervisor (removing the daemon) end pppd by; SIGTERM or SIGINT meanwhile hang pppd up before exiting.
// Anything unusual (the lock taken, a leftover pppd, a config or password problem) means no early dial: the
// daemon's ordinary start handles and reports it.
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { companionsDir, readCompanionRecord, writeCompanionRecord } from "@routerd/daemon-kit/companions";
import { loadState } from "@routerd/daemon-kit/state-file";
import { FileLock, traceStage } from "@routerd/resource";
import { daemonSocketPath, daemonStateDir } from "@routerd/rpc/socket-path";
import { loadSessionConfig, readPassword, type SessionConfig } from "../config.js";
import { DAEMON_NAME } from "../names.js";
import { isOurPppd, linkName, pppdPaths, startPppd, writePppdFiles, type RunningPppd } from "../pppd/launch.js";

export interface EarlyDialOptions {
  configPath: string;
  instance: string;
  runDir: string;
  stateDir: string;
  debug: boolean;
  /** The program pppd's hooks run and the Node that runs it. */
  program: string;
  node: string;
}

export interface EarlyDial {
  config: SessionConfig;
  running: RunningPppd;
  /** Sends pppd's lines (those so far, then each new one) to `sink`. */
  attach(sink: (line: string) => void): void;
  /** Once the daemon follows pppd (the kit's state records the pid): the early record and SIGHUP guard go. */
  adopted(): void;
}

/** The early pppd's companion record, until the daemon's own state records its pid. */
function companionPath(instanceStateDir: string): string {
  return join(companionsDir(instanceStateDir), "pppd.pid");
}

/** The pid an early dial recorded and never handed over (its daemon died first), if any. */
export function readEarlyPid(instanceStateDir: string): number | undefined {
  return readCompanionRecord(companionPath(instanceStateDir))?.pid;
}

function savedPppdPid(instanceStateDir: string): number | undefined {
  try {
    const pid = (loadState(instanceStateDir).document?.data as { pppdPid?: unknown } | null | undefined)?.pppdPid;
    return typeof pid === "number" ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Starts pppd for the first dial, or says why not (the ordinary start then takes over). */
export async function dialEarly(o: EarlyDialOptions): Promise<EarlyDial | string> {
  const dir = daemonStateDir(o.stateDir, DAEMON_NAME, o.instance);
  mkdirSync(dir, { recursive: true, mode: 0o700 }); // as the daemon kit makes it
  let lock: FileLock;
  try {
    lock = FileLock.acquire(join(dir, "dial.lock"), 0);
  } catch (err) {
    return `dial lock: ${(err as Error).message}`;
  }
  void lock; // held for the process's life (the lock records this pid; a dead holder's lock is stale)
  for (const pid of [savedPppdPid(dir), readEarlyPid(dir)]) {
    if (pid !== undefined && isOurPppd(pid, o.instance)) return `pppd ${pid} of a previous daemon still runs`;
  }
  let config: SessionConfig;
  let password: string;
  try {
    config = await loadSessionConfig(o.configPath);
    password = await readPassword(config);
  } catch (err) {
    return (err as Error).message;
  }
  const paths = pppdPaths(dir);
  const socket = daemonSocketPath(o.runDir, DAEMON_NAME, o.instance);
  writePppdFiles(paths.dir, config, password, { instance: o.instance, debug: o.debug, node: o.node, program: o.program, socket });
  const pending: string[] = [];
  let sink: ((line: string) => void) | undefined;
  const running = startPppd(paths, o.instance, (line) => (sink ? sink(line) : pending.push(line)));
  traceStage("pppoe-client: pppd spawned (early dial)");
  mkdirSync(companionsDir(dir), { recursive: true, mode: 0o700 });
  if (running.pid) writeCompanionRecord(companionPath(dir), { pid: running.pid, match: linkName(o.instance) });
  // Until the daemon kit handles signals: SIGHUP would end this process (Node's default) and leave pppd
  // behind, so it is ignored (the daemon re-reads the config once it follows pppd); SIGTERM and SIGINT hang
  // pppd up first.
  const ignoreHup = (): void => undefined;
  const hangUp = (signal: NodeJS.Signals): void => {
    running.child.kill("SIGTERM");
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.on("SIGHUP", ignoreHup);
  process.once("SIGTERM", hangUp);
  process.once("SIGINT", hangUp);
  return {
    config,
    running,
    attach(next) {
      sink = next;
      for (const line of pending.splice(0)) next(line);
    },
    adopted() {
      process.off("SIGHUP", ignoreHup);
      process.off("SIGTERM", hangUp);
      process.off("SIGINT", hangUp);
      rmSync(companionPath(dir), { force: true });
    },
  };
}
