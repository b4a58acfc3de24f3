// The confirm watchdog: a small detached process (its own session, so a closed SSH session or kill -9 of
// the applying routerd leaves it running) that reverts a pending change when its deadline passes.
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { setPriority } from "node:os";
import { dueAt, readPending } from "./pending.js";
import { PLAN_AHEAD_MS, prepareTarget, revertIfDue, revertToText, type PreparedTarget, type Reverter } from "./revert.js";
import { GENERATIONS_DIR } from "@routerd/resource";

export const WATCHDOG_COMMAND = "confirm-watchdog";
const POLL_MS = 200;

export interface WatchdogDirs {
  stateDir: string;
  root: string;
  runDir: string;
}

export function watchdogLog(stateDir: string): string {
  return join(stateDir, GENERATIONS_DIR, "watchdog.log");
}

/** Starts `routerd confirm-watchdog --id ID` detached; its output goes to <state-dir>/generations/watchdog.log. */
export function spawnWatchdog(dirs: WatchdogDirs, id: string, keep?: number): number | undefined {
  const log = watchdogLog(dirs.stateDir);
  mkdirSync(join(dirs.stateDir, GENERATIONS_DIR), { recursive: true, mode: 0o700 });
  const fd = openSync(log, "a", 0o600);
  try {
    const args = [process.argv[1]!, WATCHDOG_COMMAND, "--id", id, "--state-dir", dirs.stateDir, "--root", dirs.root, "--run-dir", dirs.runDir, ...(keep !== undefined ? ["--keep-generations", String(keep)] : [])];
    const child = spawn(process.execPath, args, { detached: true, stdio: ["ignore", fd, fd] });
    child.unref();
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for the pending change `id`: returns when it was confirmed or reverted (by us or by serve). */
export async function watch(reverter: Reverter, id: string, log: (line: string) => void): Promise<void> {
  let prepared: PreparedTarget | undefined;
  for (;;) {
    const p = readPending(reverter.stateDir);
    if (!p || p.id !== id) {
      log(`pending change ${id} resolved elsewhere (confirmed, or reverted by another process)`);
      return;
    }
    // Validate what a revert restores ahead of time: at the deadline only the reconcile is left to do.
    if (prepared?.revertTo !== p.revertTo) {
      try {
        prepared = prepareTarget(reverter.stateDir, p);
      } catch (err) {
        log(`cannot prepare the revert yet: ${(err as Error).message}`);
        prepared = undefined;
      }
    }
    const due = dueAt(p);
    const start = due === undefined ? undefined : due - PLAN_AHEAD_MS;
    if (start !== undefined && Date.now() >= start) {
      try {
        const outcome = await revertIfDue(reverter, { prepared });
        if (outcome) {
          log(revertToText(outcome));
          return;
        }
      } catch (err) {
        log(`revert failed, retrying: ${(err as Error).message}`);
        await sleep(1000);
      }
    }
    // Wake when the revert should start planning, and often enough to notice a confirmation.
    await sleep(start === undefined ? POLL_MS : Math.max(1, Math.min(POLL_MS, start - Date.now())));
  }
}

/** The watchdog is the safety net: it should get the CPU on a busy router (children inherit the priority). */
export function raisePriority(): void {
  try {
    setPriority(-10);
  } catch {
    /* not permitted: run at the normal priority */
  }
}
