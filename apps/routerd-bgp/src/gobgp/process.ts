// routerd-bgp's own gobgpd: started detached (own process group, pid file) with its API on a Unix socket
// only, so a restarted routerd-bgp re-attaches to it and its sessions and RIB survive; restarted with
// exponential back-off when it dies. Its own state dir holds the pid file and log.
import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { pidAlive } from "@routerd/daemon-kit";
import type { Logger } from "pino";

export interface GobgpdPaths {
  /** The API socket (unix://). */
  socket: string;
  pidFile: string;
  logFile: string;
}

export interface GobgpdOptions {
  paths: GobgpdPaths;
  binary?: string;
  logger: Logger;
  /** gobgpd's log level (its log goes to paths.logFile, truncated at each start). */
  logLevel?: string;
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

function cmdlineHas(pid: number, word: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").some((a) => a.includes(word));
  } catch {
    return false;
  }
}

const STABLE_AFTER_MS = 60_000;
const POLL_MS = 250;

/** Events: "up" (pid, attached: boolean) once it answers its API socket is for the caller to check; "down" (pid, code). */
export class GobgpdProcess extends EventEmitter {
  pid: number | undefined;
  private backoffMs: number;
  private startedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  restarts = 0;

  constructor(private readonly opts: GobgpdOptions) {
    super();
    this.backoffMs = opts.minBackoffMs ?? 500;
  }

  /** The gobgpd a previous routerd-bgp left running for this socket, if any. */
  private running(): number | undefined {
    try {
      const pid = Number(readFileSync(this.opts.paths.pidFile, "utf8").trim());
      return Number.isInteger(pid) && pid > 0 && pidAlive(pid) && cmdlineHas(pid, this.opts.paths.socket) ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /** Attaches to a running gobgpd or starts one; returns whether it attached. */
  async start(): Promise<boolean> {
    this.stopped = false;
    const existing = this.running();
    if (existing !== undefined) {
      this.pid = existing;
      this.startedAt = Date.now();
      this.watch();
      this.opts.logger.info({ pid: existing }, "attached to running gobgpd");
      return true;
    }
    await this.spawn();
    return false;
  }

  private async spawn(): Promise<void> {
    const { socket, pidFile, logFile } = this.opts.paths;
    for (const f of [socket, pidFile, logFile]) mkdirSync(dirname(f), { recursive: true });
    rmSync(socket, { force: true });
    const log = openSync(logFile, "w");
    const args = [`--api-hosts=unix://${socket}`, "--pprof-disable", "--log-plain", `--log-level=${this.opts.logLevel ?? "info"}`];
    const child = spawn(this.opts.binary ?? "gobgpd", args, { detached: true, stdio: ["ignore", log, log] });
    closeSync(log);
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    child.unref();
    this.pid = child.pid!;
    this.startedAt = Date.now();
    await writeFile(pidFile, `${this.pid}\n`);
    child.once("exit", (code, signal) => this.died(child.pid!, code ?? signal ?? "exit"));
    this.watch();
    this.opts.logger.info({ pid: this.pid, socket }, "gobgpd started");
  }

  /** A re-attached gobgpd is not our child: poll it. */
  private watch(): void {
    clearInterval(this.timer);
    const pid = this.pid!;
    this.timer = setInterval(() => {
      if (!pidAlive(pid)) this.died(pid, "gone");
    }, POLL_MS);
    this.timer.unref();
  }

  private died(pid: number, why: string | number): void {
    if (this.pid !== pid) return;
    clearInterval(this.timer);
    this.pid = undefined;
    if (this.stopped) return;
    if (Date.now() - this.startedAt > STABLE_AFTER_MS) this.backoffMs = this.opts.minBackoffMs ?? 500;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.opts.maxBackoffMs ?? 30_000);
    this.restarts++;
    this.opts.logger.warn({ pid, why, restartInMs: delay }, "gobgpd exited");
    this.emit("down", pid, why);
    this.timer = setTimeout(() => {
      if (this.stopped) return;
      this.spawn().then(
        () => this.emit("restarted", this.pid),
        (err: unknown) => {
          this.opts.logger.error({ err }, "gobgpd did not start");
          this.died(-1, "spawn failed");
        },
      );
    }, delay);
    this.timer.unref();
  }

  /** Stops gobgpd (SIGTERM, then SIGKILL after graceMs) and removes its pid file and socket. */
  async stop(graceMs = 5000): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.timer);
    const pid = this.pid ?? this.running();
    this.pid = undefined;
    if (pid !== undefined && pid > 0) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        /* already gone */
      }
      const until = Date.now() + graceMs;
      while (pidAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      if (pidAlive(pid)) process.kill(pid, "SIGKILL");
    }
    rmSync(this.opts.paths.pidFile, { force: true });
    rmSync(this.opts.paths.socket, { force: true });
  }

  /** Leaves gobgpd running (a restarted routerd-bgp re-attaches); only stops watching it. */
  detach(): void {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.timer);
  }
}
