// The one path every host-changing command takes: reconcile through the normal engine, then record the
// config as a generation when the reconcile succeeded.
import { resolve } from "node:path";
import type { RouterConfig } from "@routerd/api";
import { reconcileOnce, type EngineOptions, type ReconcileResult } from "../core/engine.js";
import { readPending } from "./pending.js";
import { GenerationStore, appliedBy, type GenerationRef, type GenerationResult } from "@routerd/resource";

export interface ConfigSource {
  text: string;
  /** The file it came from (stored absolute; rollback and revert write restored text back to it). */
  path?: string;
  /** `routerd apply`, `routerd serve`, ... */
  command: string;
  reason?: string;
}

/** The generation a run's config is now (created: false when it was the newest one already). */
export type Recorded = GenerationRef & { created: boolean };

export function resultOf(r: ReconcileResult): GenerationResult {
  const s = r.plan.summary;
  return { ok: r.ok, created: s.create, updated: s.update, deleted: s.delete };
}

/** Records a successful reconcile's config; the generation a pending revert needs is never pruned. */
export function recordGeneration(stateDir: string, source: ConfigSource, result: ReconcileResult, keep?: number): Recorded | undefined {
  if (!result.ok) return undefined;
  const protect = readPending(stateDir)?.revertTo ?? undefined;
  return new GenerationStore(stateDir).record(
    {
      config: source.text,
      ...(source.path ? { configPath: resolve(source.path) } : {}),
      appliedBy: appliedBy(source.command),
      ...(source.reason ? { reason: source.reason } : {}),
      result: resultOf(result),
    },
    { ...(keep !== undefined ? { keep } : {}), ...(protect !== undefined ? { protect } : {}) },
  );
}

export async function reconcileAndRecord(config: RouterConfig, source: ConfigSource, opts: EngineOptions, keep?: number): Promise<{ result: ReconcileResult; recorded?: Recorded }> {
  const result = await reconcileOnce(config, opts);
  const recorded = recordGeneration(opts.host.stateDir, source, result, keep);
  return { result, ...(recorded ? { recorded } : {}) };
}
