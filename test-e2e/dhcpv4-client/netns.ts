// Network namespaces, veth pairs and processes for the DHCPv4 client scenarios: the shared lab
// (test-e2e/lib/lab.ts) plus a few helpers of their own. Everything is removed by lab.cleanup().
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { sh } from "../lib/lab.js";

export { Lab, sh } from "../lib/lab.js";

export function nsExec(ns: string, argv: string[], opts: { allowFail?: boolean } = {}): string {
  return sh(["ip", "netns", "exec", ns, ...argv], opts);
}

/** Waits for the child to exit by itself; SIGKILL after timeoutMs. */
export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** Short random interface names (IFNAMSIZ is 16 including the NUL). */
export function ifname(prefix: string): string {
  return `${prefix}${randomBytes(3).toString("hex")}`.slice(0, 15);
}
