// Starting one pppd for one dial. Its files go to a private directory (0700, files 0600, hooks 0700) that is
// bind-mounted over /etc/ppp in a mount namespace of pppd's own: pppd reads our options and secrets and runs
// our hooks, and the host's /etc/ppp is neither read nor written. The mount vanishes with pppd.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "@routerd/resource";
import { HOOK_EVENTS, renderHook, renderOptions, renderSecrets, type HookContext, type OptionsContext } from "./render.js";
import type { SessionConfig } from "../config.js";

export interface PppdPaths {
  /** The directory mounted over /etc/ppp (removed when the daemon stops). */
  dir: string;
  pppd: string;
  unshare: string;
}

export function pppdPaths(stateDir: string, env: NodeJS.ProcessEnv = process.env): PppdPaths {
  return { dir: join(stateDir, "ppp"), pppd: env.ROUTERD_PPPD ?? "/usr/sbin/pppd", unshare: env.ROUTERD_UNSHARE ?? "/usr/bin/unshare" };
}

/** Writes options, secrets and hooks for the next dial (atomic, private modes). */
export function writePppdFiles(dir: string, config: SessionConfig, password: string, opts: OptionsContext & Omit<HookContext, "log">): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // The hooks' log starts over with every dial, so it stays small.
  writeFileAtomic(hookLogPath(dir), "", 0o600);
  writeFileAtomic(join(dir, "options"), renderOptions(config, opts), 0o600);
  const secrets = renderSecrets(config.username, password, opts.instance);
  writeFileAtomic(join(dir, "chap-secrets"), secrets, 0o600);
  writeFileAtomic(join(dir, "pap-secrets"), secrets, 0o600);
  for (const event of HOOK_EVENTS) writeFileAtomic(join(dir, event), renderHook(event, { ...opts, log: hookLogPath(dir) }), 0o700);
}

export function hookLogPath(dir: string): string {
  return join(dir, "hooks.log");
}

export function removePppdFiles(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** pppd's linkname for a session: in its command line, so a leftover pppd of this instance can be found. */
export function linkName(instance: string): string {
  return `routerd-${instance}`;
}

/** The command line: unshare → sh (bind mount) → exec pppd, all one process, so the child's pid is pppd's. */
export function pppdCommand(paths: PppdPaths, instance: string): string[] {
  const script = 'mount --bind "$0" /etc/ppp && exec "$1" nodetach linkname "$2"';
  return [paths.unshare, "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, paths.dir, paths.pppd, linkName(instance)];
}

/** The last lines pppd printed (its log goes to stdout with nodetach), for the status when it ends. */
export class OutputTail {
  private readonly lines: string[] = [];
  private partial = "";

  constructor(
    private readonly max = 20,
    private readonly onLine: (line: string) => void = () => undefined,
  ) {}

  push(chunk: Buffer | string): void {
    const parts = (this.partial + chunk.toString()).split("\n");
    this.partial = parts.pop() ?? "";
    for (const line of parts) this.add(line);
  }

  flush(): void {
    if (this.partial) this.add(this.partial);
    this.partial = "";
  }

  text(): string {
    return this.lines.join("\n");
  }

  private add(line: string): void {
    const trimmed = line.trimEnd();
    if (!trimmed) return;
    this.lines.push(trimmed);
    if (this.lines.length > this.max) this.lines.shift();
    this.onLine(trimmed);
  }
}

export interface RunningPppd {
  child: ChildProcess;
  pid: number;
  tail: OutputTail;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startPppd(paths: PppdPaths, instance: string, onLine: (line: string) => void): RunningPppd {
  const [exe, ...args] = pppdCommand(paths, instance) as [string, ...string[]];
  const child = spawn(exe, args, { stdio: ["ignore", "pipe", "pipe"] });
  const tail = new OutputTail(20, onLine);
  child.stdout!.on("data", (b: Buffer) => tail.push(b));
  child.stderr!.on("data", (b: Buffer) => tail.push(b));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("error", (err) => {
      tail.push(`cannot start ${exe}: ${err.message}\n`);
      resolve({ code: 1, signal: null });
    });
    child.once("close", (code, signal) => {
      tail.flush();
      resolve({ code, signal });
    });
  });
  return { child, pid: child.pid ?? 0, tail, exited };
}

/** A pppd of this instance left by a daemon that died without stopping it (pid from our state, checked). */
export function isOurPppd(pid: number, instance: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(linkName(instance));
  } catch {
    return false;
  }
}
