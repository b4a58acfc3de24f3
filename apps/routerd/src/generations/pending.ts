// A pending confirmation: `apply --confirm-within` writes it before the host changes (write-ahead), so a
// crash at any point still ends in a revert. <state-dir>/generations/pending.json; one at a time.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { FileLock, GENERATIONS_DIR, RouterdError, pidAlive, writeFileAtomic, type AppliedBy } from "@routerd/resource";

export interface PendingConfirmation {
  version: 1;
  id: string;
  /** The generation waiting for `routerd confirm` (set once the apply recorded it). */
  generation?: number;
  /** Digest of the config being tried. */
  digest: string;
  /** What a revert restores: a generation, or null when nothing came before (a revert removes what routerd created). */
  revertTo: number | null;
  /** The config file the tried config came from; a revert writes the restored text back to it. */
  configPath?: string;
  withinMs: number;
  createdAt: string;
  /** Set when the apply finished. Until then the window counts from createdAt once the applier has died. */
  deadline?: string;
  applier: { pid: number; bootId?: string };
  appliedBy: AppliedBy;
  watchdogPid?: number;
}

const PENDING_FILE = "pending.json";
const CONFIRM_LOCK = "confirm.lock";

export const pendingPath = (stateDir: string) => join(stateDir, GENERATIONS_DIR, PENDING_FILE);

export function bootId(): string | undefined {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

export function readPending(stateDir: string): PendingConfirmation | undefined {
  const path = pendingPath(stateDir);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as PendingConfirmation;
  } catch (err) {
    throw new RouterdError("PendingUnreadable", `${path} is unreadable: ${(err as Error).message}`, { hint: "inspect it, then remove it to leave the current config in place (or `routerd rollback --to N`)" });
  }
}

export function writePending(stateDir: string, p: PendingConfirmation): void {
  writeFileAtomic(pendingPath(stateDir), JSON.stringify(p, null, 2) + "\n", 0o600);
}

export function clearPending(stateDir: string): void {
  rmSync(pendingPath(stateDir), { force: true });
}

/** The applying process is still running (the same boot, the same pid). */
export function applierAlive(p: PendingConfirmation): boolean {
  const boot = bootId();
  if (p.applier.bootId && boot && p.applier.bootId !== boot) return false;
  return pidAlive(p.applier.pid);
}

/** The watchdog started for this change is still running (it reverts; serve only steps in when it is gone). */
export function watchdogAlive(p: PendingConfirmation): boolean {
  const boot = bootId();
  if (p.watchdogPid === undefined || (p.applier.bootId && boot && p.applier.bootId !== boot)) return false;
  return pidAlive(p.watchdogPid);
}

/** When the revert is due (ms since the epoch), or undefined while the apply is still running. */
export function dueAt(p: PendingConfirmation): number | undefined {
  if (p.deadline) return Date.parse(p.deadline);
  return applierAlive(p) ? undefined : Date.parse(p.createdAt) + p.withinMs;
}

/** Refuses a change while another one waits for confirmation; says how to resolve it. */
export function refuseWhilePending(stateDir: string): void {
  const p = readPending(stateDir);
  if (!p) return;
  const what = p.generation !== undefined ? `generation ${p.generation}` : "a change";
  const when = p.deadline ? `until ${p.deadline}` : "(its apply is still running)";
  const by = `${p.appliedBy.user}@${p.appliedBy.host}${p.appliedBy.from ? ` from ${p.appliedBy.from}` : ""}`;
  throw new RouterdError("ConfirmationPending", `refusing to apply: ${what}, applied by ${by}, waits for confirmation ${when}`, {
    hint: "run `routerd confirm` to keep it, or `routerd confirm --revert` to restore the previous generation now; then apply again",
  });
}

export const confirmLockPath = (stateDir: string) => join(stateDir, GENERATIONS_DIR, CONFIRM_LOCK);

/** One process at a time creates, confirms or reverts a pending confirmation (a dead holder's lock is taken over). */
export function withConfirmLock<T>(stateDir: string, timeoutMs: number, fn: () => T): T {
  const lock = FileLock.acquire(confirmLockPath(stateDir), timeoutMs);
  try {
    return fn();
  } finally {
    lock.release();
  }
}
