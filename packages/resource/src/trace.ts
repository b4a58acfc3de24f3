// ROUTERD_TRACE=1 prints when each stage of a command ends (ms since the process started) to stderr:
// the quickest answer to "where does this reconcile spend its time" on a real router. The first line names
// the process and when it started (epoch ms), so the traces of routerd serve and of the daemons it starts
// (they inherit the variable) can be laid on one time line. Listeners get the same marks (routerd serve
// turns a reconcile's into an OpenTelemetry trace when a pipeline exports traces).
import { basename } from "node:path";

const enabled = Boolean(process.env.ROUTERD_TRACE);
let originWritten = false;

export type StageListener = (stage: string, atEpochMs: number) => void;
const listeners = new Set<StageListener>();

export function traceStage(stage: string): void {
  if (enabled) {
    if (!originWritten) {
      originWritten = true;
      process.stderr.write(`routerd trace: ${basename(process.argv[1] ?? "node")} pid ${process.pid} started at epoch ${performance.timeOrigin.toFixed(0)} ms\n`);
    }
    process.stderr.write(`routerd trace: ${performance.now().toFixed(0).padStart(6)} ms  ${stage}\n`);
  }
  if (!listeners.size) return;
  const at = performance.timeOrigin + performance.now();
  for (const listener of listeners) listener(stage, at);
}

/** Calls `listener` at every stage mark until the returned function is called. */
export function onTraceStage(listener: StageListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
