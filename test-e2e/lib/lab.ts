// Namespaces, veth pairs, a temp dir and child processes for protocol scenarios (the DHCP clients' tests).
// Everything made here is recorded and removed by cleanup(), which every test file calls in afterAll.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function sh(argv: string[], opts: { allowFail?: boolean } = {}): string {
  try {
    return execFileSync(argv[0]!, argv.slice(1), { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    if (opts.allowFail) return "";
    const e = err as { stderr?: string; message: string };
    throw new Error(`${argv.join(" ")} failed: ${e.stderr?.trim() || e.message}`);
  }
}

/** Resolves with the exit code once the child is gone; SIGTERM is repeated, then SIGKILL after timeoutMs. */
export function terminate(child: ChildProcess, timeoutMs = 8000, signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const started = Date.now();
    child.kill(signal);
    // A signal can be lost while a daemon is starting up; repeat it, then force.
    const again = setInterval(() => {
      if (Date.now() - started > timeoutMs) child.kill("SIGKILL");
      else child.kill(signal);
    }, 500);
    child.once("exit", (code) => {
      clearInterval(again);
      resolve(code);
    });
  });
}

export class Lab {
  readonly id = randomBytes(3).toString("hex");
  readonly dir: string;
  private readonly namespaces: string[] = [];
  private readonly children: ChildProcess[] = [];

  /** `prefix` keeps areas apart in `ip netns list` (rd for DHCPv4, rd6 for DHCPv6, ...). */
  constructor(
    readonly area: string,
    readonly prefix = "rd",
  ) {
    this.dir = mkdtempSync(join(tmpdir(), `${prefix}-${area}-${this.id}-`));
  }

  /** Namespace <prefix>-<area>-<id>-<role>, loopback up, DAD off so link-locals are usable at once. */
  netns(role: string): string {
    const name = `${this.prefix}-${this.area}-${this.id}-${role}`;
    sh(["ip", "netns", "add", name]);
    this.namespaces.push(name);
    sh(["ip", "-n", name, "link", "set", "lo", "up"]);
    sh(["ip", "netns", "exec", name, "sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0"]);
    return name;
  }

  /** A veth pair created directly inside the two namespaces (no names in the host namespace). */
  veth(nsA: string, ifA: string, nsB: string, ifB: string, opts: { linkLocalB?: string } = {}): void {
    sh(["ip", "link", "add", ifA, "netns", nsA, "type", "veth", "peer", "name", ifB, "netns", nsB]);
    if (opts.linkLocalB) {
      // A fixed link-local instead of the EUI-64 one (used to give two interfaces the same address).
      sh(["ip", "-n", nsB, "link", "set", ifB, "addrgenmode", "none"]);
      sh(["ip", "-n", nsB, "addr", "add", `${opts.linkLocalB}/64`, "dev", ifB]);
    }
    sh(["ip", "-n", nsA, "link", "set", ifA, "up"]);
    sh(["ip", "-n", nsB, "link", "set", ifB, "up"]);
  }

  /** Starts a program in a namespace; `ip netns exec` execs, so the child's pid is the program's. */
  spawn(ns: string, argv: string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
    const child = spawn("ip", ["netns", "exec", ns, ...argv], { stdio: ["ignore", "pipe", "pipe"], env });
    this.children.push(child);
    return child;
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  async cleanup(): Promise<void> {
    await Promise.allSettled(this.children.map((c) => terminate(c))); // a child that will not die must not keep the namespaces
    for (const ns of this.namespaces.reverse()) sh(["ip", "netns", "del", ns], { allowFail: true });
    rmSync(this.dir, { recursive: true, force: true });
  }
}
