// Kernel change notifications from `ip -o monitor label link address route rule`: one line per change,
// labelled [LINK], [ADDR], [ROUTE] or [RULE]. Only which topics changed matters here (the observers read the
// objects themselves), so a line is classified, not parsed.
// The monitor counts as running once its netlink socket has joined the notification groups (read from
// /proc/<pid>/net/netlink): changes after that point are seen. Anything on its stderr (iproute2 reports a
// netlink overflow, ENOBUFS, there and carries on) or its end is a doubt: changes may have been missed.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import type { Topic } from "./cache.js";

export const MONITOR_ARGV = ["-o", "monitor", "label", "link", "address", "route", "rule"] as const;

/**
 * `ip` with its arguments, under `setpriv --pdeathsig KILL` where util-linux has it: a monitor must not
 * outlive a routerd that was killed (it would wait for a notification that, in a deleted namespace, never comes).
 */
export function monitorCommand(path = process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin"): { command: string; argv: string[] } {
  const setpriv = path.split(":").some((dir) => dir && existsSync(join(dir, "setpriv")));
  return setpriv ? { command: "setpriv", argv: ["--pdeathsig", "KILL", "ip", ...MONITOR_ARGV] } : { command: "ip", argv: [...MONITOR_ARGV] };
}

const IPV4 = /\b\d{1,3}(?:\.\d{1,3}){3}\b/;
const IPV6 = /[0-9a-f]*:[0-9a-f]*:|\bpref (?:low|medium|high)\b/i;

/**
 * The topics one monitor line says changed. A line that cannot be told apart (an unknown label, a route
 * without an address) names every topic it could be: guessing too wide costs a read, too narrow a miss.
 */
export function topicsOfLine(line: string): Topic[] {
  const m = /^\[([A-Z]+)\]/.exec(line);
  if (!m) return line.trim() ? ["link", "ipv4.address", "ipv6.address", "ipv4.route", "ipv6.route", "rule"] : [];
  const body = line.slice(m[0].length);
  switch (m[1]) {
    case "LINK":
      return ["link"];
    case "ADDR":
      return / inet6 /.test(body) ? ["ipv6.address"] : / inet /.test(body) ? ["ipv4.address"] : ["ipv4.address", "ipv6.address"];
    case "ROUTE": {
      // IPv6 routes always carry a preference ("pref medium"); an address says the family otherwise.
      const v6 = IPV6.test(body);
      const v4 = !v6 && IPV4.test(body);
      return v6 ? ["ipv6.route"] : v4 ? ["ipv4.route"] : ["ipv4.route", "ipv6.route"];
    }
    case "RULE":
      return ["rule"];
    default:
      return ["link", "ipv4.address", "ipv6.address", "ipv4.route", "ipv6.route", "rule"];
  }
}

/** Whether process `pid` holds a NETLINK_ROUTE socket subscribed to notification groups (Linux /proc). */
export function subscribed(pid: number): boolean {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      /* closed meanwhile */
    }
  }
  // sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode
  for (const line of readFileSync(`/proc/${pid}/net/netlink`, "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length >= 10 && f[1] === "0" && Number.parseInt(f[3]!, 16) !== 0 && inodes.has(f[9]!)) return true;
  }
  return false;
}

export interface MonitorHandlers {
  onTopics(topics: Topic[]): void;
  /** Changes may have been missed: the monitor ended, overflowed or complained. */
  onDoubt(reason: string): void;
}

export interface MonitorOptions {
  /** The command and its arguments (tests point it elsewhere); `ip` (see monitorCommand) by default. */
  command?: string;
  argv?: readonly string[];
  /** How long the monitor may take to subscribe before it counts as failed. */
  readyTimeoutMs?: number;
  /** Readiness check (tests replace it); /proc by default. */
  isSubscribed?: (pid: number) => boolean;
}

/** One run of the monitor process. `ready` resolves once changes are seen, rejects when it never gets there. */
export class NetlinkMonitor {
  private child: ChildProcess | undefined;
  private buffered = "";
  private ended = false;
  readonly ready: Promise<void>;

  constructor(
    private readonly handlers: MonitorHandlers,
    opts: MonitorOptions = {},
  ) {
    const { command, argv } = opts.command ? { command: opts.command, argv: opts.argv ?? [] } : monitorCommand();
    const child = spawn(command, argv, { stdio: ["ignore", "pipe", "pipe"] });
    this.child = child;
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (d: string) => this.lines(d));
    child.stderr!.on("data", (d: Buffer) => this.doubt(`monitor said: ${d.toString().trim().split("\n")[0]}`));
    const exited = new Promise<string>((resolve) => {
      child.once("error", (e) => resolve(`monitor could not start: ${e.message}`));
      child.once("exit", (code, signal) => resolve(`monitor ended (${signal ?? `exit ${code}`})`));
    });
    void exited.then((reason) => {
      this.child = undefined;
      if (!this.ended) this.doubt(reason);
      this.ended = true;
    });
    this.ready = waitSubscribed(child, exited, opts.isSubscribed ?? subscribed, opts.readyTimeoutMs ?? 10_000);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  stop(): void {
    this.ended = true;
    this.child?.kill();
    this.child = undefined;
  }

  private lines(chunk: string): void {
    this.buffered += chunk;
    let nl: number;
    while ((nl = this.buffered.indexOf("\n")) >= 0) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      const topics = topicsOfLine(line);
      if (topics.length) this.handlers.onTopics(topics);
    }
  }

  private doubt(reason: string): void {
    if (!this.ended) this.handlers.onDoubt(reason);
  }
}

async function waitSubscribed(child: ChildProcess, exited: Promise<string>, isSubscribed: (pid: number) => boolean, timeoutMs: number): Promise<void> {
  let gone: string | undefined;
  void exited.then((r) => (gone = r));
  const deadline = Date.now() + timeoutMs;
  for (let wait = 2; ; wait = Math.min(wait * 2, 100)) {
    if (gone) throw new Error(gone);
    if (child.pid !== undefined) {
      try {
        if (isSubscribed(child.pid)) return;
      } catch {
        /* not there yet, or gone: the exit says which */
      }
    }
    if (Date.now() > deadline) throw new Error(`monitor did not subscribe within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, wait));
  }
}
