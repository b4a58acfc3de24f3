// A program routerd-bgp runs beside itself (gobgpd, bfdd): started detached (own process group) with a
// record in <state-dir>/bgp/<router>/companions/<name>.pid; restarted with exponential back-off when it
// dies. It dies with routerd-bgp: started through `setpriv --pdeathsig KILL` (util-linux) where that is
// on the PATH, so even a SIGKILLed routerd-bgp takes it along; and a starting routerd-bgp stops a live one
// its record names (its cmdline checked: a foreign process is never touched) before starting its own.
// Only with `keep` (--keep-gobgpd) does it outlive routerd-bgp on purpose: no parent-death signal, the
// record says kept, and the next routerd-bgp re-attaches to it without a session reset. Each one also gets
// a keeper that stops it once no routerd-bgp has owned it for the orphan grace (@routerd/daemon-kit
// companions.ts): the safety net for a kept one, and for systems without setpriv.
import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { accessSync, closeSync, constants, mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { processMatches, readCompanionRecord, spawnKeeper, terminateProcess, writeCompanionRecord, type CompanionRecord } from "@routerd/daemon-kit";
import type { Logger } from "pino";

export interface CompanionOptions {
  name: string;
  binary: string;
  args: string[];
  /** A word of the program's cmdline that identifies it (its socket path). */
  match: string;
  /** <daemon state dir>/companions: the record and the keeper's record go here. */
  recordDir: string;
  logFile: string;
  /** Removed before each start and after a stop (sockets the program creates). */
  removeFiles?: string[];
  /** The owner record the keeper watches; no keeper without it. */
  owner?: { file: string; match: string; graceMs: number };
  logger: Logger;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** After the process is gone (cleans what it leaves behind). */
  afterExit?: (pid: number) => void;
  /** Outlive routerd-bgp on purpose (--keep-gobgpd): no parent-death signal; the next routerd-bgp re-attaches. */
  keep?: boolean;
  /** setpriv's path, or none (default: looked up on PATH). */
  setpriv?: string | undefined;
}

/** util-linux setpriv on the PATH (it sets PR_SET_PDEATHSIG, then execs the program: same pid). */
export function findSetpriv(path: string = process.env.PATH ?? ""): string | undefined {
  for (const dir of path.split(":")) {
    if (dir === "") continue;
    try {
      accessSync(join(dir, "setpriv"), constants.X_OK);
      return join(dir, "setpriv");
    } catch {
      /* not here */
    }
  }
  return undefined;
}

/** The command line a companion starts with: under setpriv --pdeathsig KILL unless it is kept (or there is no setpriv). */
export function companionCommand(binary: string, args: string[], o: { keep: boolean; setpriv: string | undefined }): { command: string; argv: string[] } {
  if (o.keep || o.setpriv === undefined) return { command: binary, argv: args };
  return { command: o.setpriv, argv: ["--pdeathsig", "KILL", "--", binary, ...args] };
}

/** The process at `pid` is the companion: alive, its program is `binary` (or setpriv just before its exec), it names `match`. */
export function isCompanion(pid: number, binary: string, match: string): boolean {
  if (!processMatches(pid, match)) return false;
  try {
    const program = basename(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] ?? "");
    return program === basename(binary) || program === "setpriv";
  } catch {
    return false;
  }
}

/**
 * When a process started (ms epoch), from /proc: its start in clock ticks after boot (stat field 22; Linux's
 * USER_HZ is 100) plus the boot time (/proc/stat btime). Undefined when it cannot be read.
 */
export function processStartedAt(pid: number, proc = "/proc"): number | undefined {
  try {
    const stat = readFileSync(`${proc}/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces), the 3rd field (state) first: starttime is the 22nd.
    const ticks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
    const btime = Number(/^btime (\d+)$/m.exec(readFileSync(`${proc}/stat`, "utf8"))?.[1]);
    return Number.isFinite(ticks) && btime > 0 ? btime * 1000 + ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

const STABLE_AFTER_MS = 60_000;
const POLL_MS = 250;

/** Events: "down" (pid, why) when it died, "restarted" (pid) after a back-off restart. */
export class CompanionProcess extends EventEmitter {
  pid: number | undefined;
  private backoffMs: number;
  private startedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  restarts = 0;
  /** When the running process started (ms epoch): our spawn, or /proc for one re-attached to. */
  since: number | undefined;
  /** Stale ones (left running by an earlier routerd-bgp) this one stopped at start. */
  staleStopped = 0;

  constructor(private readonly opts: CompanionOptions) {
    super();
    this.backoffMs = opts.minBackoffMs ?? 500;
  }

  get recordFile(): string {
    return join(this.opts.recordDir, `${this.opts.name}.pid`);
  }
  private get keeperFile(): string {
    return join(this.opts.recordDir, `${this.opts.name}.keeper.pid`);
  }

  /** The one a previous routerd-bgp left running (its record, checked against /proc), if any. */
  private running(): CompanionRecord | undefined {
    const rec = readCompanionRecord(this.recordFile);
    return rec !== undefined && rec.match === this.opts.match && isCompanion(rec.pid, this.opts.binary, rec.match) ? rec : undefined;
  }

  /**
   * Attaches to one a previous routerd-bgp kept running on purpose, or stops a stale one (it should have
   * died with its routerd-bgp) and starts a fresh one; returns whether it attached.
   */
  async start(): Promise<boolean> {
    this.stopped = false;
    const existing = this.running();
    if (existing?.kept === true) {
      this.pid = existing.pid;
      this.startedAt = Date.now();
      this.since = processStartedAt(existing.pid);
      this.ensureKeeper();
      this.watch();
      this.opts.logger.info({ pid: existing.pid }, `attached to running ${this.opts.name}`);
      return true;
    }
    if (existing !== undefined) {
      this.opts.logger.warn({ stalePid: existing.pid }, `stopping a stale ${this.opts.name} an earlier routerd-bgp left running`);
      this.staleStopped++;
      await terminateProcess(existing.pid, existing.match, 5000);
      this.opts.afterExit?.(existing.pid);
      await this.stopKeeper();
    }
    await this.spawn();
    return false;
  }

  private async spawn(): Promise<void> {
    const { logFile } = this.opts;
    mkdirSync(this.opts.recordDir, { recursive: true });
    mkdirSync(dirname(logFile), { recursive: true });
    for (const f of this.opts.removeFiles ?? []) rmSync(f, { force: true });
    const log = openSync(logFile, "w");
    const keep = this.opts.keep === true;
    const { command, argv } = companionCommand(this.opts.binary, this.opts.args, { keep, setpriv: "setpriv" in this.opts ? this.opts.setpriv : findSetpriv() });
    const child = spawn(command, argv, { detached: true, stdio: ["ignore", log, log] });
    closeSync(log);
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    child.unref();
    const pid = child.pid!;
    this.pid = pid;
    this.startedAt = Date.now();
    this.since = this.startedAt;
    writeCompanionRecord(this.recordFile, { pid, match: this.opts.match, ...(keep ? { kept: true } : {}) });
    child.once("exit", (code, signal) => this.died(pid, code ?? signal ?? "exit"));
    this.ensureKeeper();
    this.watch();
    this.opts.logger.info({ pid, args: this.opts.args }, `${this.opts.name} started`);
  }

  /** One keeper per running companion (a re-attach finds the old one still watching). */
  private ensureKeeper(): void {
    const owner = this.opts.owner;
    if (owner === undefined || this.pid === undefined) return;
    const companion: CompanionRecord = { pid: this.pid, match: this.opts.match };
    const rec = readCompanionRecord(this.keeperFile);
    if (rec !== undefined && processMatches(rec.pid, rec.match) && rec.match.endsWith(`:${this.pid}`)) return;
    writeCompanionRecord(this.keeperFile, spawnKeeper({ companion, ownerFile: owner.file, ownerMatch: owner.match, graceMs: owner.graceMs }));
  }

  /** A re-attached process is not our child: poll it. */
  private watch(): void {
    clearInterval(this.timer);
    const pid = this.pid!;
    this.timer = setInterval(() => {
      if (!processMatches(pid, this.opts.match)) this.died(pid, "gone");
    }, POLL_MS);
    this.timer.unref();
  }

  private died(pid: number, why: string | number): void {
    if (this.pid !== pid) return;
    clearInterval(this.timer);
    this.pid = undefined;
    this.opts.afterExit?.(pid);
    if (this.stopped) return;
    if (Date.now() - this.startedAt > STABLE_AFTER_MS) this.backoffMs = this.opts.minBackoffMs ?? 500;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.opts.maxBackoffMs ?? 30_000);
    this.restarts++;
    this.opts.logger.warn({ pid, why, restartInMs: delay }, `${this.opts.name} exited`);
    this.emit("down", pid, why);
    this.timer = setTimeout(() => {
      if (this.stopped) return;
      this.spawn().then(
        () => this.emit("restarted", this.pid),
        (err: unknown) => {
          this.opts.logger.error({ err }, `${this.opts.name} did not start`);
          this.died(-1, "spawn failed");
        },
      );
    }, delay);
    this.timer.unref();
  }

  /** Stops it (SIGTERM, then SIGKILL after graceMs) and its keeper, and removes the records and sockets. */
  async stop(graceMs = 5000): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.timer);
    const pid = this.pid ?? this.running()?.pid;
    this.pid = undefined;
    if (pid !== undefined && pid > 0) {
      await terminateProcess(pid, this.opts.match, graceMs);
      this.opts.afterExit?.(pid);
    }
    await this.stopKeeper();
    for (const f of [this.recordFile, ...(this.opts.removeFiles ?? [])]) rmSync(f, { force: true });
  }

  private async stopKeeper(): Promise<void> {
    const keeper = readCompanionRecord(this.keeperFile);
    if (keeper !== undefined) await terminateProcess(keeper.pid, keeper.match, 1000);
    rmSync(this.keeperFile, { force: true });
  }

  /** Leaves it running (a restarted routerd-bgp re-attaches; its keeper keeps watching); only stops watching it. */
  detach(): void {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.timer);
  }
}
