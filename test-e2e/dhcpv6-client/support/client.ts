// Runs the built routerd-dhcpv6-client in a namespace and collects its JSON events (stdout) and pino
// logs (stderr) so tests can wait for them.
import { execFileSync, type ChildProcess } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { terminate, type Lab } from "./lab.js";

export const REPO = new URL("../../..", import.meta.url).pathname;
const PKG = join(REPO, "apps/routerd-dhcpv6-client");
export const CLIENT_BIN = join(PKG, "bin/routerd-dhcpv6-client.js");

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** The namespace tests run the real program, so compile it when src/ is newer than dist/. */
export function ensureBuilt(): void {
  let built = 0;
  try {
    built = statSync(join(PKG, "dist/main.js")).mtimeMs;
  } catch {
    built = 0;
  }
  if (newest(join(PKG, "src")) > built) {
    execFileSync(process.execPath, [join(REPO, "node_modules/typescript/bin/tsc"), "-p", join(PKG, "tsconfig.json")], { stdio: "pipe" });
  }
}

export type Json = Record<string, unknown>;

interface Waiter {
  match: (x: Json) => boolean;
  resolve: (x: Json) => void;
}

export class ClientProcess {
  readonly events: Json[] = [];
  readonly logs: Json[] = [];
  readonly stderrText: string[] = [];
  private eventWaiters: Waiter[] = [];
  private logWaiters: Waiter[] = [];
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess, readonly startedAt: number) {
    createInterface({ input: child.stdout! }).on("line", (line) => this.push(line, this.events, () => this.eventWaiters, (w) => (this.eventWaiters = w)));
    createInterface({ input: child.stderr! }).on("line", (line) => {
      this.stderrText.push(line);
      this.push(line, this.logs, () => this.logWaiters, (w) => (this.logWaiters = w));
    });
    this.exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  }

  static start(lab: Lab, ns: string, args: string[]): ClientProcess {
    const startedAt = Date.now();
    return new ClientProcess(lab.spawn(ns, [process.execPath, CLIENT_BIN, "--log-level", "debug", ...args]), startedAt);
  }

  private push(line: string, list: Json[], get: () => Waiter[], set: (w: Waiter[]) => void): void {
    let obj: Json;
    try {
      obj = JSON.parse(line) as Json;
    } catch {
      return;
    }
    obj.receivedAt = Date.now();
    list.push(obj);
    const waiters = get();
    const hit = waiters.filter((w) => w.match(obj));
    set(waiters.filter((w) => !w.match(obj)));
    hit.forEach((w) => w.resolve(obj));
  }

  private wait(list: Json[], waiters: () => Waiter[], set: (w: Waiter[]) => void, match: (x: Json) => boolean, what: string, timeoutMs: number, after = 0): Promise<Json> {
    const m = (x: Json) => (x.receivedAt as number) >= after && match(x);
    const found = list.find(m);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        set(waiters().filter((w) => w.resolve !== done));
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; events: ${JSON.stringify(this.events.map((e) => e.event))}\n${this.stderrText.slice(-15).join("\n")}`));
      }, timeoutMs);
      const done = (x: Json) => {
        clearTimeout(timer);
        resolve(x);
      };
      set([...waiters(), { match: m, resolve: done }]);
    });
  }

  /** Waits for an event of this type (optionally matching), received at or after `after` (ms epoch). */
  waitForEvent(type: string, timeoutMs = 15_000, opts: { after?: number; match?: (e: Json) => boolean } = {}): Promise<Json> {
    return this.wait(this.events, () => this.eventWaiters, (w) => (this.eventWaiters = w), (e) => e.event === type && (opts.match?.(e) ?? true), `event ${type}`, timeoutMs, opts.after);
  }

  waitForLog(match: (l: Json) => boolean, what: string, timeoutMs = 15_000, after = 0): Promise<Json> {
    return this.wait(this.logs, () => this.logWaiters, (w) => (this.logWaiters = w), match, what, timeoutMs, after);
  }

  /** Messages this client sent, from its debug log ("transmit" lines). */
  transmitted(type?: string): Json[] {
    return this.logs.filter((l) => l.msg === "transmit" && (type === undefined || l.message === type));
  }

  signal(sig: NodeJS.Signals): void {
    this.child.kill(sig);
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
    return terminate(this.child, 10_000, signal);
  }
}

export function prefixesOf(e: Json): string[] {
  return ((e.prefixes as Array<{ prefix: string }>) ?? []).map((p) => p.prefix);
}
