// The daemon's resident view of its FIB routes: after one dump at start, every change the kernel reports
// on `ip -o -N monitor route` (numeric protocol, one line per route) updates the view. A route of ours that
// someone else deleted or changed is noticed at once and rewritten. When the monitor dies (netlink
// overflow, ENOBUFS, or any doubt) the view is rebuilt from a fresh dump: a full dump happens only then.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import type { Logger } from "pino";
import { parseRouteLine, type FibTarget, type KernelRoute } from "./lines.js";

export interface RouteChange {
  /** undefined: the route was deleted. */
  route: KernelRoute;
  deleted: boolean;
}

/** One monitor line → a change of a route with our protocol in our table, or undefined. */
export function parseMonitorLine(line: string, t: FibTarget): RouteChange | undefined {
  const deleted = line.startsWith("Deleted ");
  const body = deleted ? line.slice(8) : line;
  const tokens = body.split(/\s+/);
  const proto = tokens[tokens.indexOf("proto") + 1];
  if (tokens.indexOf("proto") < 0 || proto !== String(t.protocol)) return undefined;
  const ti = tokens.indexOf("table");
  const table = ti < 0 ? 254 : tokens[ti + 1] === "main" ? 254 : Number(tokens[ti + 1]);
  if (table !== t.table) return undefined;
  const dst = tokens[0] === "unicast" ? tokens[1] : tokens[0];
  const route = parseRouteLine(body, (dst ?? "").includes(":"));
  return route === undefined ? undefined : { route, deleted };
}

export class RouteMonitor {
  private child: ChildProcessWithoutNullStreams | undefined;
  private buffered = "";
  private stopped = false;

  constructor(
    private readonly target: FibTarget,
    private readonly logger: Logger,
    private readonly onChange: (c: RouteChange) => void,
    /** The monitor ended unexpectedly: the view may have missed changes. */
    private readonly onDoubt: () => void,
  ) {}

  /** Resolves once the monitor runs (changes after this point are seen). */
  start(): Promise<void> {
    this.stopped = false;
    const child = spawn("ip", ["-o", "-N", "monitor", "route"], { stdio: ["ignore", "pipe", "pipe"] });
    this.child = child as unknown as ChildProcessWithoutNullStreams;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      this.buffered += d;
      let nl: number;
      while ((nl = this.buffered.indexOf("\n")) >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        const c = parseMonitorLine(line, this.target);
        if (c !== undefined) this.onChange(c);
      }
    });
    child.stderr.on("data", (d: Buffer) => this.logger.warn({ stderr: d.toString().trim() }, "route monitor"));
    child.on("exit", (code, signal) => {
      if (this.stopped) return;
      this.logger.warn({ code, signal }, "route monitor ended: resynchronising the FIB view");
      this.onDoubt();
    });
    return new Promise((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", reject);
    });
  }

  stop(): void {
    this.stopped = true;
    this.child?.kill();
    this.child = undefined;
  }
}
