// What routerd serve does about generations and a pending confirmation: it reverts a change whose deadline
// has passed (also after its own restart or crash), holds other config changes while one is pending,
// records the configs it applies as generations, and reports all of it as events and status.
import type { DaemonContext } from "@routerd/daemon-kit";
import type { Logger } from "pino";
import type { ReconcileResult } from "../core/engine.js";
import { dueAt, readPending, watchdogAlive, type PendingConfirmation } from "../generations/pending.js";
import { recordGeneration } from "../generations/record.js";
import { PLAN_AHEAD_MS, revertIfDue, revertToText, type Reverter } from "../generations/revert.js";
import { GenerationStore, configDigest } from "@routerd/resource";

/** Serve starts no ordinary reconcile this close to a revert deadline, so the revert is not kept waiting. */
const QUIET_BEFORE_DUE_MS = 2000;
/** How long past the deadline serve leaves the revert to a live watchdog before doing it itself. */
const WATCHDOG_GRACE_MS = 3000;

const pendingKey = (p: PendingConfirmation | undefined) => (p ? `${p.id}|${p.generation ?? ""}|${p.deadline ?? ""}` : "");

export class ServeGenerations {
  private pending?: PendingConfirmation;
  private digest?: { text: string; value: string };
  /** Digest of the config serve last recorded (or found recorded): unchanged cycles skip the store. */
  private recorded?: string;

  constructor(
    private readonly stateDir: string,
    private readonly configPath: string,
    private readonly logger: Logger,
    private readonly keep?: number,
  ) {}

  /**
   * Whether a change started or stopped waiting for confirmation since the last tick (`routerd apply
   * --confirm`, `routerd confirm`): serve then runs a cycle at once. An unreadable file counts as a change,
   * so the cycle reports it. The same change counts as changed once its apply finished (generation and
   * deadline set): status must not keep showing the write-ahead record without them.
   */
  pendingChanged(): boolean {
    try {
      return pendingKey(readPending(this.stateDir)) !== pendingKey(this.pending);
    } catch {
      return true;
    }
  }

  /** Milliseconds until the pending deadline, or undefined. */
  msUntilDue(now = Date.now()): number | undefined {
    const due = this.pending ? dueAt(this.pending) : undefined;
    return due === undefined ? undefined : Math.max(0, due - now);
  }

  /** Milliseconds until serve should start the revert (it plans ahead of the deadline), for the loop's sleep. */
  msUntilRevert(now = Date.now()): number | undefined {
    const due = this.msUntilDue(now);
    return due === undefined ? undefined : Math.max(0, due - PLAN_AHEAD_MS);
  }

  /** Status details: what waits for confirmation, until when. */
  details(): Record<string, string | number | null> | undefined {
    const p = this.pending;
    return p ? { generation: p.generation ?? null, revertTo: p.revertTo, deadline: p.deadline ?? null, appliedBy: `${p.appliedBy.user}@${p.appliedBy.host}` } : undefined;
  }

  /**
   * Called at the start of every cycle. Reverts a due change with serve's own reconcile and reports a change
   * confirmed or reverted by another process. "hold": a different change waits for confirmation (or its
   * deadline is near: a reconcile started now would delay the revert), so serve does not apply `configText`
   * now; "reverted": the config file was restored, reload it.
   */
  async tick(ctx: DaemonContext, configText: string, reconcile: Reverter["reconcile"]): Promise<"go" | "hold" | "reverted"> {
    const before = this.pending;
    this.pending = readPending(this.stateDir);
    if (before && this.pending?.id !== before.id) this.reportResolved(ctx, before);
    if (this.pending && this.pending.id !== before?.id) ctx.events.emit({ topic: "confirm.pending", message: `generation ${this.pending.generation ?? "(being applied)"} waits for confirmation`, attributes: this.attrs(this.pending) });
    if (!this.pending) return "go";
    // The change's own watchdog reverts it; serve steps in when the watchdog is gone (a crash, a reboot) or late.
    const dueMs = dueAt(this.pending);
    const left = dueMs === undefined ? undefined : dueMs - Date.now();
    const watchdogOnDuty = watchdogAlive(this.pending) && (left === undefined || left > -WATCHDOG_GRACE_MS);
    const outcome = watchdogOnDuty ? undefined : await revertIfDue({ stateDir: this.stateDir, command: "routerd serve", ...(this.keep ? { keep: this.keep } : {}), reconcile });
    if (outcome) {
      this.logger.warn({ to: outcome.to, from: outcome.pending.generation, ok: outcome.result.ok }, "pending change not confirmed: reverted");
      ctx.events.emit({ topic: "confirm.reverted", severity: "warning", message: revertToText(outcome), attributes: this.attrs(outcome.pending) });
      this.pending = undefined;
      return "reverted";
    }
    if (left !== undefined && left < QUIET_BEFORE_DUE_MS) return "hold";
    return this.digestOf(configText) === this.pending.digest ? "go" : "hold";
  }

  /** After serve's own reconcile: a config that changed the host (or is new) is recorded as a generation. */
  record(configText: string, result: ReconcileResult): void {
    if (!result.ok || this.pending) return;
    const digest = this.digestOf(configText);
    if (!result.changed && digest === this.recorded) return;
    recordGeneration(this.stateDir, { text: configText, path: this.configPath, command: "routerd serve" }, result, this.keep);
    this.recorded = digest;
  }

  private digestOf(text: string): string {
    if (this.digest?.text !== text) this.digest = { text, value: configDigest(text) };
    return this.digest.value;
  }

  private reportResolved(ctx: DaemonContext, p: PendingConfirmation): void {
    const state = p.generation !== undefined ? new GenerationStore(this.stateDir).get(p.generation)?.confirmation?.state : undefined;
    const message = state === "confirmed" ? `generation ${p.generation} confirmed` : `generation ${p.generation ?? "(unrecorded)"} reverted to ${p.revertTo ?? "nothing"} by another process`;
    ctx.events.emit({ topic: state === "confirmed" ? "confirm.confirmed" : "confirm.reverted", message, attributes: this.attrs(p) });
  }

  private attrs(p: PendingConfirmation): Record<string, string> {
    return { ...(p.generation !== undefined ? { generation: String(p.generation) } : {}), revertTo: String(p.revertTo), ...(p.deadline ? { deadline: p.deadline } : {}) };
  }
}
