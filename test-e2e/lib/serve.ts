// Starting and stopping `routerd serve` in a test namespace, and asking it for its status.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { REPO, ROUTERD, sh, type Netns } from "./netns.js";

export const ROUTERCTL = join(REPO, "apps/routerctl/bin/routerctl.js");

export interface ServeProcess {
  child: ChildProcess;
  runDir: string;
  stateDir: string;
  log: string[];
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function startServe(ns: Netns, opts: { config: string; stateDir: string; runDir: string; root: string; extra?: string[]; env?: NodeJS.ProcessEnv }): ServeProcess {
  const child = spawn(
    "ip",
    ["netns", "exec", ns.name, process.execPath, ROUTERD, "serve", "--config", opts.config, "--state-dir", opts.stateDir, "--run-dir", opts.runDir, "--root", opts.root, "--interval", "2s", ...(opts.extra ?? [])],
    { stdio: ["ignore", "pipe", "pipe"], ...(opts.env ? { env: opts.env } : {}) },
  );
  const log: string[] = [];
  child.stdout!.on("data", (b: Buffer) => log.push(b.toString()));
  child.stderr!.on("data", (b: Buffer) => log.push(b.toString()));
  return {
    child,
    runDir: opts.runDir,
    stateDir: opts.stateDir,
    log,
    stop: (signal = "SIGTERM") =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill(signal);
      }),
  };
}

export function routerctl(ns: Netns, args: string[], runDir: string): { code: number; json?: unknown; stdout: string; stderr: string } {
  const r = sh("ip", ["netns", "exec", ns.name, process.execPath, ROUTERCTL, ...args, "--run-dir", runDir, "--json"], { allowFail: true });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { ...r, json };
}

/** Polls `fn` until it returns a value; the timeout error names what was awaited and the last error. */
export async function until<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ""}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The cluster role routerd serve reports over its socket, or undefined while it is not answering. */
export function clusterRole(ns: Netns, runDir: string): string | undefined {
  const s = routerctl(ns, ["status"], runDir).json as { resources?: { name: string; phase: string }[] } | undefined;
  return s?.resources?.find((r) => r.name === "cluster")?.phase;
}
