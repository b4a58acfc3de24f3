// A router namespace that a management namespace reaches over an SSH-like TCP service, with two configs:
// A lets the management network in on TCP 2222, B (a plausible mistake) drops it.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { killAll } from "../lib/daemons.js";
import { res, routerYaml, type ResourceDoc } from "../lib/config.js";
import { Netns, routerd, tempDir, type Run } from "../lib/netns.js";
import { until } from "../lib/serve.js";

export const SSH_PORT = 2222;
const here = (f: string) => new URL(f, import.meta.url).pathname;

export function configA(): ResourceDoc[] {
  return [
    res("Interface", "mgmt", { ifname: "mgmt0" }),
    res("IPv4StaticAddress", "mgmt-address", { interface: "mgmt", address: "10.99.0.1/24" }),
    res("FirewallZone", "management", { role: "mgmt", interfaces: ["mgmt"] }),
    res("FirewallPolicy", "default", { defaultInput: "drop", defaultForward: "drop" }),
    res("FirewallRule", "ssh", { fromZone: "management", toZone: "self", protocol: "tcp", port: SSH_PORT, action: "accept" }),
  ];
}

/** The mistake: the rule that lets management in is gone. */
export function configB(): ResourceDoc[] {
  return configA().filter((r) => r.name !== "ssh");
}

interface Attempt {
  t: number;
  ok: boolean;
}

export class ManagedRouter {
  readonly router = Netns.create("rd-cfm");
  readonly mgmt = Netns.create("rd-mgt");
  readonly tmp = tempDir("routerd-confirm-");
  readonly stateDir = join(this.tmp.dir, "state");
  readonly root = join(this.tmp.dir, "root");
  readonly runDir = join(this.stateDir, "run");
  /** The file routerd serve reads. */
  readonly configPath = join(this.tmp.dir, "router.yaml");
  private readonly children: ChildProcess[] = [];
  private attempts: Attempt[] = [];

  constructor() {
    this.router.veth("mgmt0", "mgmt0p", this.mgmt);
    this.mgmt.ip("addr add 10.99.0.2/24 dev mgmt0p");
    this.mgmt.ip("link set mgmt0p up");
    this.spawn(this.router, [here("ssh-like.mjs"), String(SSH_PORT)]);
  }

  write(resources: ResourceDoc[], path = this.configPath): string {
    writeFileSync(path, routerYaml(resources));
    return path;
  }

  routerd(args: string[]): Run {
    return routerd(this.router, args, { stateDir: this.stateDir, root: this.root });
  }

  /** routerd started in the background (apply --wait, serve), to be killed by the test. */
  start(args: string[]): ChildProcess {
    return this.spawn(this.router, [join(new URL("../..", import.meta.url).pathname, "apps/routerd/bin/routerd.js"), ...args, "--state-dir", this.stateDir, "--root", this.root, "--run-dir", this.runDir]);
  }

  /** Starts the management session's probe loop. */
  async startProbe(): Promise<void> {
    const child = this.spawn(this.mgmt, [here("probe-loop.mjs"), "10.99.0.1", String(SSH_PORT)]);
    let buffer = "";
    child.stdout!.on("data", (b: Buffer) => {
      buffer += b.toString();
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const l of lines) this.attempts.push(JSON.parse(l) as Attempt);
    });
    await this.waitReachable(true, 15_000);
  }

  /** The first attempt at or after `since` with the given result (ms), waiting up to `timeoutMs`. */
  async waitReachable(ok: boolean, timeoutMs: number, since = 0): Promise<number> {
    return until(`the management path ${ok ? "to work" : "to be cut"}`, () => this.attempts.find((a) => a.t >= since && a.ok === ok)?.t, timeoutMs, 50);
  }

  /** No attempt at or after `since` succeeded (the path stayed cut). */
  reachableSince(since: number): boolean {
    return this.attempts.some((a) => a.t >= since && a.ok);
  }

  pending(): { generation?: number; deadline?: string; watchdogPid?: number } | undefined {
    const path = join(this.stateDir, "generations", "pending.json");
    return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as { deadline?: string }) : undefined;
  }

  generations(): { generation: number; reason?: string; appliedBy: { command: string }; confirmation?: { state: string } }[] {
    return (JSON.parse(this.routerd(["rollback", "--list", "--json"]).stdout) as { generations: ReturnType<ManagedRouter["generations"]> }).generations;
  }

  private spawn(ns: Netns, args: string[]): ChildProcess {
    const child = spawn("ip", ["netns", "exec", ns.name, process.execPath, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    child.stderr!.on("data", () => undefined);
    this.children.push(child);
    return child;
  }

  async destroy(): Promise<void> {
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    await killAll(this.stateDir); // watchdogs and serve name the state dir on their command line
    this.router.destroy();
    this.mgmt.destroy();
    this.tmp.cleanup();
  }
}
