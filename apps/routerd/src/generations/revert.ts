// Confirm-or-rollback: the revert is an ordinary reconcile to the previous generation, recorded as a new
// generation with the reason. The watchdog, `routerd serve` and `routerd confirm --revert` all come here;
// the confirm lock makes sure exactly one of them does it.
import { existsSync, statSync } from "node:fs";
import { loadConfig, type RouterConfig } from "@routerd/api";
import { FileLock, GenerationStore, LockBusyError, RouterdError, writeFileAtomic } from "@routerd/resource";
import type { HostContext } from "@routerd/host";
import { reconcileOnce, type ReconcileResult } from "../core/engine.js";
import { clearPending, confirmLockPath, dueAt, readPending, type PendingConfirmation } from "./pending.js";
import { recordGeneration, type Recorded } from "./record.js";

export interface Reverter {
  stateDir: string;
  /** `routerd confirm-watchdog`, `routerd serve`, ... (recorded as who applied the revert). */
  command: string;
  keep?: number;
  /** The reconcile to run (plain for the watchdog, serve's for serve), passing `beforeApply` to the engine. */
  reconcile(config: RouterConfig, allowEmpty: boolean, beforeApply: () => Promise<boolean>): Promise<ReconcileResult>;
}

/** The reconcile of every reverter but serve: the normal engine, no daemons (serve manages those). */
export function plainReconcile(host: HostContext): Reverter["reconcile"] {
  return (config, allowEmpty, beforeApply) => reconcileOnce(config, { host, allowEmpty, beforeApply });
}

export interface RevertOutcome {
  pending: PendingConfirmation;
  /** The generation restored, or null for "nothing": what routerd created since was removed. */
  to: number | null;
  result: ReconcileResult;
  recorded?: Recorded;
  /** The config file that now holds the restored text, or why it could not be written. */
  configFile?: { path: string; written: boolean; error?: string };
  reason: string;
}

/** What a revert to "nothing before" applies: no resources, so routerd removes only what it created. */
export function emptyRouterText(notConfirmed: number | undefined): string {
  return [
    `# Written by routerd: ${notConfirmed !== undefined ? `generation ${notConfirmed}` : "the applied config"} was not confirmed and no generation came before it.`,
    "# The unconfirmed config is kept: routerd rollback --list",
    "apiVersion: routerd.net/v1alpha1",
    "kind: Router",
    "metadata: { name: reverted }",
    "spec:",
    "  resources: []",
    "",
  ].join("\n");
}

/** The validated config a revert of `p` restores (prepared ahead of the deadline by the watchdog). */
export interface PreparedTarget {
  revertTo: number | null;
  text: string;
  config: RouterConfig;
}

export function prepareTarget(stateDir: string, p: PendingConfirmation): PreparedTarget {
  const text = p.revertTo === null ? emptyRouterText(p.generation) : new GenerationStore(stateDir).require(p.revertTo).config;
  const loaded = loadConfig(text, p.revertTo === null ? "(empty config)" : `generation ${p.revertTo}`);
  if (!loaded.config) {
    const first = loaded.issues.find((i) => i.severity === "error");
    throw new RouterdError("RevertTargetInvalid", `generation ${p.revertTo} no longer validates: ${first?.message ?? "invalid"}`, { hint: "this routerd is newer than the generation; fix the config and apply it" });
  }
  return { revertTo: p.revertTo, text, config: loaded.config };
}

/** Puts the restored text back into the file the tried config came from, so serve and the next boot agree. */
function restoreConfigFile(path: string | undefined, text: string): RevertOutcome["configFile"] {
  if (!path) return undefined;
  try {
    const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o644;
    writeFileAtomic(path, text, mode);
    return { path, written: true };
  } catch (err) {
    return { path, written: false, error: (err as Error).message };
  }
}

/** A revert plans this long before its deadline, so at the deadline only the host changes are left. */
export const PLAN_AHEAD_MS = 1500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Reverts the pending change at its deadline (or now, with `force`). Called from PLAN_AHEAD_MS before the
 * deadline, it observes and plans first, then waits for the deadline; a `routerd confirm` that arrives
 * meanwhile wins and nothing changes. Returns undefined when nothing was reverted: not due yet, confirmed,
 * or another process holds the confirm lock (it is reverting or confirming).
 */
export async function revertIfDue(r: Reverter, opts: { force?: boolean; reason?: string; prepared?: PreparedTarget; now?: () => number } = {}): Promise<RevertOutcome | undefined> {
  const now = opts.now ?? Date.now;
  const seen = readPending(r.stateDir);
  const due = seen ? dueAt(seen) : undefined;
  if (!seen || (!opts.force && (due === undefined || now() < due - PLAN_AHEAD_MS))) return undefined;
  const { text, config } = opts.prepared?.revertTo === seen.revertTo ? opts.prepared : prepareTarget(r.stateDir, seen);
  let lock: FileLock | undefined;
  let pending: PendingConfirmation | undefined;
  // At the deadline: take the confirm lock and make sure the change is still pending (not confirmed).
  const gate = async (): Promise<boolean> => {
    if (!opts.force && due !== undefined) await sleep(Math.max(0, due - now()));
    try {
      lock = FileLock.acquire(confirmLockPath(r.stateDir), 0);
    } catch (err) {
      if (err instanceof LockBusyError) return false;
      throw err;
    }
    pending = readPending(r.stateDir);
    return pending?.id === seen.id;
  };
  try {
    const result = await r.reconcile(config, seen.revertTo === null, gate);
    if (result.abandoned || !pending || pending.id !== seen.id) return undefined;
    const p = pending;
    // The host first (the management path), then the file; a crash in between repeats the revert (a no-op).
    const configFile = restoreConfigFile(p.configPath, text);
    const reason =
      opts.reason ?? (opts.force ? `revert: generation ${p.generation ?? "(unrecorded)"} rejected by routerd confirm --revert` : `revert: generation ${p.generation ?? "(unrecorded)"} was not confirmed by ${new Date(due ?? now()).toISOString()}`);
    const recorded = recordGeneration(r.stateDir, { text, ...(p.configPath ? { path: p.configPath } : {}), command: r.command, reason }, result, r.keep);
    const store = new GenerationStore(r.stateDir);
    if (p.generation !== undefined) store.setConfirmation(p.generation, { state: "reverted", ...(p.deadline ? { deadline: p.deadline } : {}), at: new Date(now()).toISOString() });
    // The reconcile ran: the host follows the restored config now (serve retries any failed step).
    clearPending(r.stateDir);
    return { pending: p, to: p.revertTo, result, ...(recorded ? { recorded } : {}), ...(configFile ? { configFile } : {}), reason };
  } finally {
    (lock as FileLock | undefined)?.release();
  }
}

export function isDue(p: PendingConfirmation, now: number): boolean {
  const due = dueAt(p);
  return due !== undefined && now >= due;
}

export function revertToText(o: RevertOutcome): string {
  const target = o.to === null ? "the state before any generation (removed what routerd created)" : `generation ${o.to}`;
  const lines = [`${o.reason}; restored ${target}${o.recorded?.created ? ` as generation ${o.recorded.generation}` : ""}.`];
  if (o.configFile) lines.push(o.configFile.written ? `${o.configFile.path} holds the restored config again.` : `could not restore ${o.configFile.path}: ${o.configFile.error}`);
  if (!o.result.ok) lines.push("Some steps of the revert failed; routerd serve retries them (see the report above).");
  return lines.join("\n");
}
