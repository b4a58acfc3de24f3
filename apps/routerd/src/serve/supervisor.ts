// The built-in supervisor for hosts without systemd (labs, containers, tests). Daemons run detached in their
// own process group with a pid file, so a restarted `routerd serve` re-attaches to them instead of starting
// duplicates. A daemon that dies is restarted with exponential back-off.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { traceStage, writeFileAtomic } from "@routerd/resource";
// Light imports only: serve's early start (early-start.ts) loads this before gRPC.
import { stopCompanions } from "@routerd/daemon-kit/companions";
import { PROGRAM_ENVIRONMENT } from "@routerd/render";
import { pidAlive } from "@routerd/resource";
import type { Logger } from "pino";
import { capDaemonLog } from "./daemon-log.js";

export interface DaemonSpec {
  daemon: string;
  instance: string;
  /** Full argv; the first element is the executable (node for routerd's own daemons). */
  command: string[];
  /** A word of /proc/<pid>/cmdline that identifies the program (pids get reused). */
  match: string;
  /** Config routerd writes for the daemon; a change is delivered with SIGHUP, or a restart when `restartOnConfigChange`. */
  config?: { path: string; content: string };
  restartOnConfigChange?: boolean;
  /** The program's own environment (glibc's malloc settings: daemon-kit's v8-flags.ts); serve's environment wins. */
  environment?: Readonly<Record<string, string>>;
}

interface PidRecord {
  pid: number;
  match: string;
  argsDigest: string;
  startedAt: string;
}

interface Managed {
  spec: DaemonSpec;
  pid?: number;
  restarts: number;
  backoffMs: number;
  nextStartAt: number;
  startedAt: number;
}

const MIN_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
const STABLE_AFTER_MS = 60_000;
/** How often the daemons' logs are checked against their size limit. */
const LOG_CHECK_MS = 10_000;

const digest = (s: DaemonSpec) =>
  createHash("sha256")
    .update(JSON.stringify([s.command, s.restartOnConfigChange ? s.config?.content : undefined]))
    .digest("hex")
    .slice(0, 16);

/** The process at `pid` is still the program we started (pids get reused). */
function isOurs(pid: number, program: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(program);
  } catch {
    return false;
  }
}

export class Supervisor {
  private readonly managed = new Map<string, Managed>();
  private timer?: NodeJS.Timeout;
  private logsCheckedAt = 0;

  constructor(
    /** env: what daemons it starts get (the telemetry settings and OTEL_* variables); default its own. */
    private readonly dirs: { runDir: string; stateDir: string; env?: (daemon: string) => NodeJS.ProcessEnv },
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  pidFile(daemon: string, instance: string): string {
    return daemonPidFile(this.dirs.runDir, daemon, instance);
  }
  socketPath(daemon: string, instance: string): string {
    return join(this.dirs.runDir, daemon, `${instance}.sock`);
  }
  stateDirOf(daemon: string, instance: string): string {
    return join(this.dirs.stateDir, daemon, instance);
  }
  logFile(daemon: string, instance: string): string {
    return daemonLogFile(this.dirs.stateDir, daemon, instance);
  }

  /** Starts watching; call once. */
  start(pollMs = 250): void {
    this.timer = setInterval(() => this.poll(), pollMs);
    this.timer.unref();
  }

  /** Makes the daemon run with this spec: re-attach, start, reload (config change) or restart (args change). */
  ensure(spec: DaemonSpec): void {
    const key = `${spec.daemon}/${spec.instance}`;
    let m = this.managed.get(key);
    const configChanged = spec.config ? writeDaemonConfig(spec.config) : false;
    if (!m) {
      m = { spec, restarts: 0, backoffMs: MIN_BACKOFF_MS, nextStartAt: 0, startedAt: 0 };
      this.managed.set(key, m);
      const rec = readPidRecord(this.dirs.runDir, spec.daemon, spec.instance);
      if (rec && isRunning(rec, spec)) {
        m.pid = rec.pid;
        m.startedAt = Date.parse(rec.startedAt) || this.clock();
        this.logger.info({ daemon: key, pid: rec.pid }, "re-attached to running daemon");
        if (rec.argsDigest !== digest(spec)) this.restart(m, "arguments changed");
        else if (configChanged) this.signal(m, "SIGHUP");
        return;
      }
      this.launch(m);
      return;
    }
    const argsChanged = digest(m.spec) !== digest(spec);
    m.spec = spec;
    if (argsChanged) this.restart(m, "arguments changed");
    else if (configChanged && m.pid) this.signal(m, "SIGHUP");
  }

  /**
   * Stops the daemon and forgets it; with `purge` also removes its socket and state directory. The programs
   * it recorded as companions (routerd-bgp's gobgpd) go with it: the daemon normally stops them itself, but
   * not when it had to be killed or was not running.
   */
  async remove(daemon: string, instance: string, purge: boolean): Promise<void> {
    const key = `${daemon}/${instance}`;
    const m = this.managed.get(key);
    this.managed.delete(key);
    const pid = m?.pid ?? readPidRecord(this.dirs.runDir, daemon, instance)?.pid;
    if (pid && pidAlive(pid)) await this.terminate(pid);
    const companions = await stopCompanions(this.stateDirOf(daemon, instance));
    if (companions.length > 0) this.logger.info({ daemon: key, companions }, "stopped the daemon's companions");
    rmSync(this.pidFile(daemon, instance), { force: true });
    if (purge) {
      rmSync(this.socketPath(daemon, instance), { force: true });
      rmSync(this.stateDirOf(daemon, instance), { recursive: true, force: true });
    }
    this.logger.info({ daemon: key, purge }, "daemon removed");
  }

  running(): { daemon: string; instance: string; pid?: number; restarts: number }[] {
    return [...this.managed.values()].map((m) => ({ daemon: m.spec.daemon, instance: m.spec.instance, ...(m.pid ? { pid: m.pid } : {}), restarts: m.restarts }));
  }

  /** Leaves daemons running (a restarted serve re-attaches); only stops watching. */
  detach(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async stopAll(): Promise<void> {
    this.detach();
    await Promise.all([...this.managed.values()].map((m) => this.remove(m.spec.daemon, m.spec.instance, false)));
  }

  private poll(): void {
    const now = this.clock();
    if (now - this.logsCheckedAt >= LOG_CHECK_MS) {
      this.logsCheckedAt = now;
      for (const m of this.managed.values()) this.capLog(m.spec);
    }
    for (const m of this.managed.values()) {
      if (m.pid && pidAlive(m.pid)) {
        if (now - m.startedAt > STABLE_AFTER_MS) m.backoffMs = MIN_BACKOFF_MS;
        continue;
      }
      if (m.pid) {
        this.logger.warn({ daemon: `${m.spec.daemon}/${m.spec.instance}`, pid: m.pid, backoffMs: m.backoffMs }, "daemon exited; restarting after back-off");
        m.pid = undefined;
        m.nextStartAt = now + m.backoffMs;
        m.backoffMs = Math.min(m.backoffMs * 2, MAX_BACKOFF_MS);
        m.restarts += 1;
      }
      if (now >= m.nextStartAt) this.launch(m);
    }
  }

  private capLog(spec: DaemonSpec): void {
    try {
      if (capDaemonLog(this.logFile(spec.daemon, spec.instance))) this.logger.info({ daemon: `${spec.daemon}/${spec.instance}` }, "daemon log rotated");
    } catch (err) {
      this.logger.warn({ err, daemon: `${spec.daemon}/${spec.instance}` }, "daemon log could not be rotated");
    }
  }

  private launch(m: Managed): void {
    const { spec } = m;
    const pid = launchDaemon(spec, this.dirs, this.dirs.env?.(spec.daemon) ?? process.env, this.clock);
    if (pid === undefined) {
      this.logger.error({ daemon: `${spec.daemon}/${spec.instance}` }, "daemon failed to spawn");
      m.nextStartAt = this.clock() + m.backoffMs;
      return;
    }
    m.pid = pid;
    m.startedAt = this.clock();
    this.logger.info({ daemon: `${spec.daemon}/${spec.instance}`, pid }, "daemon started");
  }

  private restart(m: Managed, reason: string): void {
    this.logger.info({ daemon: `${m.spec.daemon}/${m.spec.instance}`, reason }, "restarting daemon");
    const pid = m.pid;
    m.pid = undefined;
    m.nextStartAt = Number.POSITIVE_INFINITY; // launched once the old one is gone
    void (pid ? this.terminate(pid) : Promise.resolve()).then(() => {
      if (this.managed.get(`${m.spec.daemon}/${m.spec.instance}`) === m) this.launch(m);
    });
  }

  private signal(m: Managed, sig: NodeJS.Signals): void {
    if (m.pid && pidAlive(m.pid)) process.kill(m.pid, sig);
  }

  private async terminate(pid: number, graceMs = 10_000): Promise<void> {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      return;
    }
    const deadline = Date.now() + graceMs;
    while (pidAlive(pid) && !isZombie(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (pidAlive(pid) && !isZombie(pid)) process.kill(pid, "SIGKILL");
  }

}

function readPidRecord(runDir: string, daemon: string, instance: string): PidRecord | undefined {
  try {
    return JSON.parse(readFileSync(daemonPidFile(runDir, daemon, instance), "utf8")) as PidRecord;
  } catch {
    return undefined;
  }
}

const isRunning = (rec: PidRecord, spec: DaemonSpec) => pidAlive(rec.pid) && isOurs(rec.pid, spec.match);

/** The pid of the daemon's recorded process when it still runs (what a supervisor would re-attach to). */
export function runningDaemonPid(runDir: string, spec: DaemonSpec): number | undefined {
  const rec = readPidRecord(runDir, spec.daemon, spec.instance);
  return rec && isRunning(rec, spec) ? rec.pid : undefined;
}

const daemonPidFile = (runDir: string, daemon: string, instance: string) => join(runDir, daemon, `${instance}.pid`);
const daemonLogFile = (stateDir: string, daemon: string, instance: string) => join(stateDir, daemon, instance, "daemon.log");

/**
 * Starts a daemon detached (its own process group: a kill -9 of serve does not take it along), its output
 * appended to its daemon.log, and records its pid file; the pid, or undefined when it could not be spawned.
 * A supervisor that later ensures the same spec re-attaches to it (the pid file's digest matches).
 * The daemon gets PROGRAM_ENVIRONMENT (what its systemd unit sets too) and its spec's environment (what its
 * launcher's shebang sets) unless `env` sets those names itself.
 */
export function launchDaemon(spec: DaemonSpec, dirs: { runDir: string; stateDir: string }, env: NodeJS.ProcessEnv, clock: () => number = Date.now): number | undefined {
  const log = daemonLogFile(dirs.stateDir, spec.daemon, spec.instance);
  const pidFile = daemonPidFile(dirs.runDir, spec.daemon, spec.instance);
  mkdirSync(dirname(log), { recursive: true });
  mkdirSync(dirname(pidFile), { recursive: true });
  const fd = openSync(log, "a", 0o600);
  const [exe, ...argv] = spec.command as [string, ...string[]];
  const child = spawn(exe, argv, { detached: true, stdio: ["ignore", fd, fd], env: { ...PROGRAM_ENVIRONMENT, ...spec.environment, ...env } });
  closeSync(fd);
  child.unref();
  if (!child.pid) return undefined;
  traceStage(`serve: daemon ${spec.daemon}/${spec.instance} spawned`);
  const rec: PidRecord = { pid: child.pid, match: spec.match, argsDigest: digest(spec), startedAt: new Date(clock()).toISOString() };
  writeFileAtomic(pidFile, JSON.stringify(rec) + "\n", 0o600);
  return child.pid;
}

/** Writes a daemon's config file when its content differs; true when it did. */
export function writeDaemonConfig(config: { path: string; content: string }): boolean {
  if (existsSync(config.path) && readFileSync(config.path, "utf8") === config.content) return false;
  writeFileAtomic(config.path, config.content, 0o600);
  return true;
}

export function isZombie(pid: number): boolean {
  try {
    return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

export function removePidFile(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* already gone */
  }
}
