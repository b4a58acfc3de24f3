// Arming, settling and confirming a pending change (apply --confirm-within, routerd confirm).
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { bootId, clearPending, readPending, refuseWhilePending, withConfirmLock, writePending, type PendingConfirmation } from "./pending.js";
import type { Recorded } from "./record.js";
import { GenerationStore, appliedBy, configDigest, type Generation } from "@routerd/resource";
import { spawnWatchdog, type WatchdogDirs } from "./watchdog.js";
import { isDue } from "./revert.js";

export type Armed = { pending: PendingConfirmation } | { unchanged: Generation };

/**
 * Write-ahead: records the pending confirmation and starts the watchdog before the host changes, so a crash
 * anywhere after this still ends in a revert. A config that is the newest generation already needs none.
 */
export function armConfirmation(dirs: WatchdogDirs, input: { text: string; path: string; withinMs: number; command: string }, keep?: number): Armed {
  const armed = withConfirmLock(dirs.stateDir, 5_000, (): Armed => {
    refuseWhilePending(dirs.stateDir);
    const digest = configDigest(input.text);
    const newest = new GenerationStore(dirs.stateDir).newest();
    if (newest?.digest === digest) return { unchanged: newest };
    const pending: PendingConfirmation = {
      version: 1,
      id: randomUUID(),
      digest,
      revertTo: newest?.generation ?? null,
      configPath: resolve(input.path),
      withinMs: input.withinMs,
      createdAt: new Date().toISOString(),
      applier: { pid: process.pid, ...(bootId() ? { bootId: bootId()! } : {}) },
      appliedBy: appliedBy(input.command),
    };
    writePending(dirs.stateDir, pending);
    return { pending };
  });
  if (!("pending" in armed)) return armed;
  const watchdogPid = spawnWatchdog(dirs, armed.pending.id, keep);
  return { pending: update(dirs.stateDir, armed.pending.id, (p) => ({ ...p, ...(watchdogPid ? { watchdogPid } : {}) })) ?? armed.pending };
}

/** After a successful apply: the window starts now. Returns the pending record with its deadline. */
export function startWindow(stateDir: string, id: string, recorded: Recorded): PendingConfirmation | undefined {
  const updated = update(stateDir, id, (p) => ({ ...p, generation: recorded.generation, deadline: new Date(Date.now() + p.withinMs).toISOString() }));
  if (updated) new GenerationStore(stateDir).setConfirmation(recorded.generation, { state: "pending", deadline: updated.deadline! });
  return updated;
}

function update(stateDir: string, id: string, fn: (p: PendingConfirmation) => PendingConfirmation): PendingConfirmation | undefined {
  return withConfirmLock(stateDir, 5_000, () => {
    const p = readPending(stateDir);
    if (!p || p.id !== id) return undefined;
    const next = fn(p);
    writePending(stateDir, next);
    return next;
  });
}

export type ConfirmOutcome =
  | { state: "confirmed"; generation: number | undefined }
  | { state: "nothing-pending"; last?: Generation["confirmation"] & { generation: number } }
  | { state: "too-late"; pending: PendingConfirmation };

/** `routerd confirm`: keeps the pending change. A deadline that has passed is honoured: the revert stands. */
export function confirmPending(stateDir: string): ConfirmOutcome {
  return withConfirmLock(stateDir, 60_000, (): ConfirmOutcome => {
    const p = readPending(stateDir);
    const store = new GenerationStore(stateDir);
    if (!p) {
      const last = store.list().reverse().find((g) => g.confirmation);
      return { state: "nothing-pending", ...(last?.confirmation ? { last: { ...last.confirmation, generation: last.generation } } : {}) };
    }
    if (isDue(p, Date.now())) return { state: "too-late", pending: p };
    if (p.generation !== undefined) store.setConfirmation(p.generation, { state: "confirmed", ...(p.deadline ? { deadline: p.deadline } : {}), at: new Date().toISOString() });
    clearPending(stateDir);
    return { state: "confirmed", generation: p.generation };
  });
}

export function describeWindow(p: PendingConfirmation): string {
  const target = p.revertTo === null ? "what routerd created is removed (no earlier generation)" : `generation ${p.revertTo} is restored`;
  return `Confirm by ${p.deadline} (within ${Math.round(p.withinMs / 1000)} s): \`routerd confirm\` keeps generation ${p.generation}; otherwise ${target} automatically.`;
}
