// ROUTERD_TRACE=1 prints when each stage of a command ends (ms since the process started) to stderr:
// the quickest answer to "where does this reconcile spend its time" on a real router.
const enabled = Boolean(process.env.ROUTERD_TRACE);

export function traceStage(stage: string): void {
  if (enabled) process.stderr.write(`routerd trace: ${performance.now().toFixed(0).padStart(6)} ms  ${stage}\n`);
}
