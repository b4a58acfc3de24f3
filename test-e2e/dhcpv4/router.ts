// `routerd serve` in a router namespace with its own root, state and run directories inside the Lab's temp
// dir, plus what the DHCPv4 tests read back: the kernel's addresses and routes, <root>/etc/resolv.conf,
// the client daemons' status and events. cleanup() stops serve and every daemon it started (the supervisor
// leaves them running when serve stops) by their pid files, then anything else still running from the
// Lab's directory, then the Lab itself.
import { execFileSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectDaemon, daemonSocketPath, type DaemonConnection, type Event, type ResourceState } from "@routerd/rpc";
import { routerYaml, type ResourceDoc } from "../lib/config.js";
import { Lab, nsExec, waitForExit } from "../dhcpv4-client/netns.js";
import { until } from "../lib/serve.js";

export { until };

const ROOT = new URL("../../", import.meta.url).pathname;
const ROUTERD = join(ROOT, "apps/routerd/bin/routerd.js");
export const DHCPV4 = "dhcpv4-client";

/** The spawned programs run from dist/: build what they need when a source is newer than its output. */
export function ensureBuilt(): void {
  const stale = ["packages/rpc", "packages/daemon-kit", "packages/api", "packages/render", "packages/host", "packages/resource", "apps/routerd", "apps/routerd-dhcpv4-client"].some(
    (pkg) => !existsSync(join(ROOT, pkg, "dist/index.js")) || newest(join(ROOT, pkg, "src")) > statMs(join(ROOT, pkg, "dist/index.js")),
  );
  if (stale) execFileSync("npx", ["turbo", "run", "build", "--filter=routerd", "--filter=@routerd/dhcpv4-client", "--output-logs=errors-only"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
}

function statMs(p: string): number {
  return existsSync(p) ? statSync(p).mtimeMs : 0;
}

function newest(dir: string): number {
  let out = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    out = Math.max(out, e.isDirectory() ? newest(p) : statMs(p));
  }
  return out;
}


export interface Addr {
  local: string;
  prefixlen: number;
}

export interface Route {
  dst: string;
  gateway?: string;
  dev: string;
  metric?: number;
  protocol?: string;
}

export class Router {
  readonly ns: string;
  readonly root: string;
  readonly stateDir: string;
  readonly runDir: string;
  readonly configPath: string;
  serve: ChildProcess | undefined;
  readonly serveLog: string[] = [];
  private monitor: ChildProcess | undefined;
  readonly addressLog: string[] = [];

  constructor(readonly lab: Lab) {
    this.ns = lab.netns("rtr");
    this.root = lab.path("root");
    this.stateDir = lab.path("state");
    this.runDir = lab.path("run");
    this.configPath = lab.path("router.yaml");
  }

  writeConfig(resources: ResourceDoc[]): void {
    writeFileSync(this.configPath, routerYaml(resources));
  }

  startServe(): void {
    this.serve = this.lab.spawn(this.ns, [
      process.execPath,
      ROUTERD,
      "serve",
      "--config",
      this.configPath,
      "--state-dir",
      this.stateDir,
      "--run-dir",
      this.runDir,
      "--root",
      this.root,
      "--interval",
      "2s",
    ]);
    this.serve.stdout?.on("data", (b: Buffer) => this.serveLog.push(b.toString()));
    this.serve.stderr?.on("data", (b: Buffer) => this.serveLog.push(b.toString()));
  }

  /** Every address change in the namespace as `ip monitor` prints it ("Deleted ..." for removals). */
  watchAddresses(): void {
    this.monitor = this.lab.spawn(this.ns, ["ip", "-4", "monitor", "address"]);
    this.monitor.stdout?.setEncoding("utf8").on("data", (chunk: string) => this.addressLog.push(...chunk.split("\n").filter(Boolean)));
  }

  deletions(address: string): string[] {
    return this.addressLog.filter((l) => l.startsWith("Deleted") && l.includes(` ${address}/`));
  }

  addresses(ifname: string): Addr[] {
    const out = JSON.parse(nsExec(this.ns, ["ip", "-j", "-4", "addr", "show", "dev", ifname])) as { addr_info: Addr[] }[];
    return (out[0]?.addr_info ?? []).map((a) => ({ local: a.local, prefixlen: a.prefixlen }));
  }

  routes(): Route[] {
    return JSON.parse(nsExec(this.ns, ["ip", "-j", "-4", "route", "show", "table", "main"])) as Route[];
  }

  resolvConf(): string {
    const p = join(this.root, "etc/resolv.conf");
    return existsSync(p) ? readFileSync(p, "utf8") : "";
  }

  socket(instance: string, daemon = DHCPV4): string {
    return daemonSocketPath(this.runDir, daemon, instance);
  }

  daemonStateDir(instance: string, daemon = DHCPV4): string {
    return join(this.stateDir, daemon, instance);
  }

  pid(instance: string, daemon = DHCPV4): number | undefined {
    try {
      return (JSON.parse(readFileSync(join(this.runDir, daemon, `${instance}.pid`), "utf8")) as { pid: number }).pid;
    } catch {
      return undefined;
    }
  }

  /** What routerd serve publishes for a resource (`Kind/name`): its details in routerctl status --json. */
  async published(id: string): Promise<Record<string, unknown> | undefined> {
    const conn = await connectDaemon(daemonSocketPath(this.runDir, "routerd", "core"), { connectTimeoutMs: 5000, callTimeoutMs: 5000 });
    try {
      const r = (await conn.getStatus()).resources.find((x) => x.name === id);
      return r?.detailsJson ? (JSON.parse(r.detailsJson) as Record<string, unknown>) : undefined;
    } finally {
      conn.close();
    }
  }

  async resource(instance: string): Promise<ResourceState | undefined> {
    const conn = await connectDaemon(this.socket(instance), { connectTimeoutMs: 500, callTimeoutMs: 1500 });
    try {
      return (await conn.getStatus()).resources.find((r) => r.name === instance);
    } finally {
      conn.close();
    }
  }

  /** Processes whose command line mentions the Lab's directory: everything this test started. */
  leftovers(): number[] {
    const out: number[] = [];
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
      try {
        if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(this.lab.dir)) out.push(Number(entry));
      } catch {
        /* gone */
      }
    }
    return out;
  }

  async stopServe(): Promise<void> {
    if (!this.serve) return;
    this.serve.kill("SIGTERM");
    await waitForExit(this.serve, 10_000);
    this.serve = undefined;
  }

  /** Stops everything and removes the namespaces, whatever fails on the way (the lab is removed last, always). */
  async cleanup(): Promise<void> {
    try {
      await this.stopServe().catch(() => this.serve?.kill("SIGKILL"));
      const dirs = existsSync(this.runDir) ? readdirSync(this.runDir, { withFileTypes: true }).filter((d) => d.isDirectory()) : [];
      for (const daemon of dirs) {
        for (const f of readdirSync(join(this.runDir, daemon.name)).filter((x) => x.endsWith(".pid"))) {
          const pid = this.pid(f.slice(0, -4), daemon.name);
          if (pid) kill(pid, "SIGKILL");
        }
      }
      for (const pid of this.leftovers()) kill(pid, "SIGKILL");
    } finally {
      this.monitor?.kill("SIGTERM");
      await this.lab.cleanup();
    }
  }
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    /* already gone */
  }
}

/**
 * One DHCP exchange with busybox udhcpc on `iface` in `ns`: what a stock client would configure (its
 * `script` writes the environment of the "bound" call to `out`).
 */
export function udhcpc(ns: string, iface: string, script: string, out: string): Record<string, string> {
  rmSync(out, { force: true });
  nsExec(ns, ["busybox", "udhcpc", "-f", "-q", "-n", "-t", "6", "-T", "2", "-A", "1", "-i", iface, "-s", script]);
  return Object.fromEntries(
    readFileSync(out, "utf8")
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

/** Lease events of one daemon instance, collected from its socket (reconnecting across restarts). */
export class EventTap {
  readonly events: Event[] = [];
  private readonly ac = new AbortController();

  constructor(private readonly socket: string) {
    void this.run();
  }

  private async run(): Promise<void> {
    let afterSeq = 0;
    while (!this.ac.signal.aborted) {
      let conn: DaemonConnection | undefined;
      try {
        conn = await connectDaemon(this.socket, { connectTimeoutMs: 500 });
        for await (const e of conn.watchEvents({ afterSeq, topicPrefixes: ["dhcpv4."], signal: this.ac.signal })) {
          afterSeq = Number(e.seq);
          this.events.push(e);
        }
      } catch {
        /* not up yet, or restarting */
      } finally {
        conn?.close();
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  topics(): string[] {
    return this.events.map((e) => e.topic.replace("dhcpv4.lease.", ""));
  }

  /** Waits for an event of this type after index `from`; returns its index. */
  async next(type: string, from: number, timeoutMs: number): Promise<number> {
    return until(`event ${type} after #${from} (seen: ${this.topics().join(" ")})`, () => {
      const i = this.events.findIndex((e, k) => k >= from && e.topic === `dhcpv4.lease.${type}`);
      return i >= 0 ? i : undefined;
    }, timeoutMs);
  }

  close(): void {
    this.ac.abort();
  }
}
