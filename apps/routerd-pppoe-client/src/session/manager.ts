// Runs one PPPoE session: dials with pppd, follows its hooks and its exit, redials with back-off, hangs up
// cleanly on stop. The decisions are machine.ts's; this class performs them and reports every change.
import { pidAlive, traceStage } from "@routerd/resource";
import type { Logger } from "pino";
import { readPassword, type SessionConfig } from "../config.js";
import { endCause, type EndCause } from "../pppd/exit-status.js";
import { isOurPppd, removePppdFiles, startPppd, writePppdFiles, type PppdPaths, type RunningPppd } from "../pppd/launch.js";
import type { HookContext } from "../pppd/render.js";
import { DEFAULT_BACKOFF, type BackoffPolicy } from "./backoff.js";
import { INITIAL_STATE, step, type Happening, type SessionState } from "./machine.js";

/** pppd gets this long to hang up (LCP terminate, PADT) before it is killed. */
const HANGUP_GRACE_MS = 6000;
const MAX_TIMER_MS = 0x7fffffff;

export interface SessionManagerOptions {
  instance: string;
  config: SessionConfig;
  paths: PppdPaths;
  hook: Omit<HookContext, "log">;
  logger: Logger;
  /** Every state change, with the happening that caused it. */
  onChange: (prev: SessionState, next: SessionState, h: Happening) => void;
  /** Remembers pppd's pid across a daemon crash (the kit's state.json). */
  savePid: (pid: number | undefined) => void;
  debug?: boolean;
  policy?: BackoffPolicy;
  now?: () => number;
  random?: () => number;
}

export class SessionManager {
  private state: SessionState = INITIAL_STATE;
  private config: SessionConfig;
  private pppd: RunningPppd | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Hook reports that came before start() (an early dial's pppd reports once the socket serves). */
  private readonly early: Record<string, string>[] = [];
  private started = false;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly policy: BackoffPolicy;

  constructor(private readonly opts: SessionManagerOptions) {
    this.config = opts.config;
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.policy = opts.policy ?? DEFAULT_BACKOFF;
  }

  get current(): SessionState {
    return this.state;
  }

  get currentConfig(): SessionConfig {
    return this.config;
  }

  /**
   * Ends any pppd a crashed daemon left behind (its session would hold the PPPoE link), then dials, or
   * takes over the pppd this process started before it served (early-dial.ts).
   */
  async start(leftoverPids: readonly (number | undefined)[], early?: { running: RunningPppd; attach(sink: (line: string) => void): void }): Promise<void> {
    for (const pid of new Set(leftoverPids)) {
      if (pid === undefined || pid === early?.running.pid || !isOurPppd(pid, this.opts.instance)) continue;
      this.opts.logger.warn({ pid }, "ending pppd left by a previous daemon");
      await killAndWait(pid, HANGUP_GRACE_MS);
    }
    // With pppd running already, the redial request arms no dial of its own.
    if (early) this.pppd = early.running;
    this.dispatch({ type: "redial-requested", at: this.now() });
    if (early) {
      early.attach(this.pppdLine());
      void this.follow(early.running);
    }
    // Hooks of the early pppd may have reported as soon as the socket served, before this start.
    this.started = true;
    for (const args of this.early.splice(0)) this.hook(args);
  }

  /** A report from one of pppd's hooks. */
  hook(args: Record<string, string>): void {
    if (!this.started) {
      this.early.push(args);
      return;
    }
    const at = this.now();
    const pid = Number(args.pppdPid);
    if (this.pppd === undefined || (args.pppdPid !== undefined && pid !== this.pppd.pid)) {
      // A hook of a pppd that is already gone (its report arrived late): nothing to change.
      this.opts.logger.info({ args }, "hook report for a pppd that is no longer running; ignored");
      return;
    }
    switch (args.event) {
      case "ip-up": {
        const link = { local: args.local ?? "", remote: args.remote ?? "", dnsServers: args.dnsServers ? args.dnsServers.split(",") : [] };
        // A hook retried after a slow answer reports the same again: nothing changes.
        if (JSON.stringify(link) !== JSON.stringify(this.state.ipv4)) this.dispatch({ type: "ip-up", at, link });
        return;
      }
      case "ipv6-up": {
        const link = { localLinkLocal: args.localLinkLocal ?? "", peerLinkLocal: args.peerLinkLocal ?? "" };
        if (JSON.stringify(link) !== JSON.stringify(this.state.ipv6)) this.dispatch({ type: "ipv6-up", at, link });
        return;
      }
      case "ip-down":
        this.dispatch({ type: "ip-down" });
        return;
      case "ipv6-down":
        this.dispatch({ type: "ipv6-down" });
        return;
      default:
        throw new Error(`unknown hook event ${JSON.stringify(args.event)}`);
    }
  }

  /** Hang up (if up) and dial again now, without back-off. */
  redial(): void {
    this.dispatch({ type: "redial-requested", at: this.now() });
    if (this.state.redialPending) this.hangup();
  }

  /** A new config: a change that pppd must see redials; persist alone does not. */
  reconfigure(config: SessionConfig): boolean {
    const dialChanged = JSON.stringify({ ...this.config, persist: undefined }) !== JSON.stringify({ ...config, persist: undefined });
    this.config = config;
    if (dialChanged) this.redial();
    return dialChanged;
  }

  /** Hangs up cleanly and removes pppd's files (its secrets included). */
  async stop(): Promise<void> {
    this.dispatch({ type: "stop-requested" });
    const running = this.pppd;
    if (running) {
      this.hangup();
      const killer = setTimeout(() => running.child.kill("SIGKILL"), HANGUP_GRACE_MS);
      await running.exited;
      clearTimeout(killer);
    }
    removePppdFiles(this.opts.paths.dir);
  }

  private hangup(): void {
    this.pppd?.child.kill("SIGTERM");
  }

  private dispatch(h: Happening): void {
    const prev = this.state;
    this.state = step(prev, h);
    this.opts.onChange(prev, this.state, h);
    this.arm();
  }

  /** Starts the next dial when it is due (and nothing runs). */
  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const at = this.state.nextDialAt;
    if (at === undefined || this.pppd !== undefined || this.state.stopping) return;
    this.timer = setTimeout(() => void this.dial(), Math.min(Math.max(0, at - this.now()), MAX_TIMER_MS));
  }

  private async dial(): Promise<void> {
    this.timer = undefined;
    if (this.pppd !== undefined || this.state.stopping) return;
    const config = this.config;
    let password: string;
    try {
      password = await readPassword(config);
    } catch (err) {
      this.ended({ reason: "Failed", message: `cannot read the password: ${(err as Error).message}`, backoff: "normal" }, undefined, "");
      return;
    }
    writePppdFiles(this.opts.paths.dir, config, password, { instance: this.opts.instance, debug: this.opts.debug ?? false, ...this.opts.hook });
    const running = startPppd(this.opts.paths, this.opts.instance, this.pppdLine());
    traceStage("pppoe-client: pppd spawned");
    await this.follow(running);
  }

  /** What becomes of pppd's output lines: debug log entries (and trace lines). */
  private pppdLine(): (line: string) => void {
    const log = this.opts.logger.child({ pppd: true });
    return (line) => {
      traceStage(`pppoe-client: pppd: ${line}`);
      log.debug({ line }, "pppd");
    };
  }

  /** Records a running pppd as this session's dial and reports how it ends. */
  private async follow(running: RunningPppd): Promise<void> {
    this.pppd = running;
    this.opts.savePid(running.pid || undefined);
    this.dispatch({ type: "dialed", pid: running.pid });
    const { code, signal } = await running.exited;
    this.pppd = undefined;
    this.opts.savePid(undefined);
    this.opts.logger.info({ code, signal, lastLines: running.tail.text() }, "pppd exited");
    this.ended(endCause(code, signal), code ?? undefined, running.tail.text());
  }

  private ended(cause: EndCause, exitCode: number | undefined, error: string): void {
    this.dispatch({
      type: "exited",
      cause,
      ...(exitCode !== undefined ? { exitCode } : {}),
      error,
      at: this.now(),
      persist: this.config.persist,
      policy: this.policy,
      random: this.random(),
    });
  }
}

async function killAndWait(pid: number, graceMs: number): Promise<void> {
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (pidAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (pidAlive(pid)) process.kill(pid, "SIGKILL");
}
