// Spawning and watching the child processes of the crash and lock tests (plain JS so that tsc never
// compiles test helpers into dist/).
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const TESTDATA = dirname(fileURLToPath(import.meta.url));
export const SRC = dirname(TESTDATA);

const running = new Set();

/** @returns {import("node:child_process").ChildProcessWithoutNullStreams} */
export function spawnNode(script, args) {
  const child = spawn(process.execPath, [join(TESTDATA, script), ...args], { stdio: ["pipe", "pipe", "pipe"] });
  running.add(child);
  child.on("exit", () => running.delete(child));
  return child;
}

/** Kills whatever a test left running (a failed assertion must not leak processes). */
export function killAll() {
  for (const c of running) c.kill("SIGKILL");
  running.clear();
}

/** @returns {Promise<number | null>} */
export function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

/** Resolves with the first stdout line; rejects if the child exits first (with its stderr). */
export function firstLine(child) {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr.on("data", (d) => (err += d.toString()));
    const onData = (d) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) {
        child.stdout.off("data", onData);
        resolve(out.slice(0, nl));
      }
    };
    child.stdout.on("data", onData);
    child.once("exit", (code, signal) => reject(new Error(`child exited (${code ?? signal}) before writing a line: ${err}`)));
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
