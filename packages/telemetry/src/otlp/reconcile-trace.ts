// One reconcile as a trace: the engine marks the end of each stage (@routerd/resource traceStage); the
// timeline turns those marks into a root span for the run and a child span per stage. Pure: no SDK here,
// so a trace can wait in a bounded queue until the OpenTelemetry SDK is loaded to export it.
import { MAX_CHILDREN, type PhaseSpan, type SpanRecord } from "./span.js";

/** The mark that opens a run (the first thing planWith in apps/routerd/src/core/engine.ts does). */
export const RUN_STARTED = "plan started";
/** The mark that closes an applied run (the status files are the last thing reconcileOnce writes). */
export const RUN_FINISHED = "status saved";

/** A reconcile's span: attributes routerd.reconcile.applied (false: the run ended without applying — plan
 * only on a standby, abandoned, or failed midway) and routerd.reconcile.phases. */
export type ReconcileTrace = SpanRecord;

// Stage names become span names as they are ("host observed"), bounded in number per run.
export class ReconcileTimeline {
  private open?: { start: number; last: number; phases: PhaseSpan[] };

  /**
   * Feeds one stage mark (epoch ms). Returns the finished run when this mark finished one: RUN_FINISHED
   * ends it; a new RUN_STARTED while one is open ends the old one at its last mark, as not applied.
   */
  mark(stage: string, at: number): ReconcileTrace | undefined {
    if (stage === RUN_STARTED) {
      const unfinished = this.close(false);
      this.open = { start: at, last: at, phases: [] };
      return unfinished;
    }
    const run = this.open;
    if (!run) return undefined; // a stage outside a run (the CLI's own marks)
    if (run.phases.length < MAX_CHILDREN) run.phases.push({ name: stage, start: run.last, end: at });
    run.last = at;
    return stage === RUN_FINISHED ? this.close(true) : undefined;
  }

  /** Ends an open run at its last mark (a standby's plan-only run never reaches RUN_FINISHED). */
  close(applied: boolean): ReconcileTrace | undefined {
    const run = this.open;
    this.open = undefined;
    if (!run) return undefined;
    return { name: "routerd.reconcile", start: run.start, end: run.last, attributes: { "routerd.reconcile.applied": applied, "routerd.reconcile.phases": run.phases.length }, children: run.phases };
  }
}
