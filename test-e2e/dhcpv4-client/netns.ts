// Network namespaces, veth pairs and processes for the DHCPv4 client scenarios. Everything created here
// is recorded in a Lab and removed by lab.cleanup(), which the tests call in afterAll/finally.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function sh(argv: string[], opts: { allowFail?: boolean } = {}): string {
  try {
    return execFileSync(argv[0] as string, argv.slice(1), { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    if (opts.allowFail) return "";
    const e = err as { stderr?: string; message: string };
    throw new Error(`${argv.join(" ")} failed: ${e.stderr?.trim() || e.message}`);
  }
}

export function nsExec(ns: string, argv: string[], opts: { allowFail?: boolean } = {}): string {
  return sh(["ip", "netns", "exec", ns, ...argv], opts);
}

export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

export class Lab {
  readonly id = randomBytes(3).toString("hex");
  readonly dir: string;
  private readonly namespaces: string[] = [];
  private readonly children: ChildProcess[] = [];

  constructor(readonly area: string) {
    this.dir = mkdtempSync(join(tmpdir(), `rd-${area}-${this.id}-`));
  }

  /** A namespace named rd-<area>-<id>-<role> with loopback up. */
  netns(role: string): string {
    const name = `rd-${this.area}-${this.id}-${role}`;
    sh(["ip", "netns", "add", name]);
    this.namespaces.push(name);
    sh(["ip", "-n", name, "link", "set", "lo", "up"]);
    return name;
  }

  /** A veth pair between two namespaces, both ends up. Names must fit IFNAMSIZ (15). */
  veth(nsA: string, ifA: string, nsB: string, ifB: string): void {
    sh(["ip", "link", "add", ifA, "netns", nsA, "type", "veth", "peer", "name", ifB, "netns", nsB]);
    sh(["ip", "-n", nsA, "link", "set", ifA, "up"]);
    sh(["ip", "-n", nsB, "link", "set", ifB, "up"]);
  }

  /** Starts a long-running program inside a namespace; `ip netns exec` execs, so the pid is the program's. */
  spawn(ns: string, argv: string[]): ChildProcess {
    const child = spawn("ip", ["netns", "exec", ns, ...argv], { stdio: ["ignore", "pipe", "pipe"] });
    this.children.push(child);
    return child;
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  async cleanup(): Promise<void> {
    for (const child of this.children) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    }
    await Promise.all(this.children.map((c) => waitForExit(c, 3000)));
    for (const ns of this.namespaces.reverse()) sh(["ip", "netns", "del", ns], { allowFail: true });
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Short random interface names (IFNAMSIZ is 16 including the NUL). */
export function ifname(prefix: string): string {
  return `${prefix}${randomBytes(3).toString("hex")}`.slice(0, 15);
}
