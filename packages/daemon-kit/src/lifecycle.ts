// Signal handling and the one stop sequence of a daemon, under a shared deadline.
import type { Logger } from "pino";
import type { DaemonContext, RunDaemonOptions, StopResult } from "./options.js";

export interface LifecycleDeps {
  options: RunDaemonOptions;
  logger: Logger;
  controller: AbortController;
  ctx: DaemonContext;
  onStopping: (reason: string) => void;
  closeServer: (timeoutMs: number) => Promise<boolean>;
  flush: () => void;
  reload: () => Promise<void>;
}

/** Signal handlers and the one stop sequence, with a shared deadline. */
export function lifecycle(deps: LifecycleDeps): { stop: (reason?: string) => Promise<StopResult>; done: Promise<StopResult> } {
  const { options, logger } = deps;
  let resolveDone!: (r: StopResult) => void;
  const done = new Promise<StopResult>((r) => (resolveDone = r));
  let stopping: Promise<StopResult> | undefined;

  const onTerm = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, "signal received");
    void stop(signal);
  };
  const onHup = (): void => {
    logger.info({ signal: "SIGHUP" }, "signal received");
    deps.reload().catch(() => undefined); // already logged and emitted
  };
  const onAbort = (): void => void stop("aborted");
  const handleSignals = options.handleSignals ?? true;
  if (handleSignals) {
    process.on("SIGTERM", onTerm);
    process.on("SIGINT", onTerm);
    process.on("SIGHUP", onHup);
  }
  options.signal?.addEventListener("abort", onAbort, { once: true });

  const stop = (reason = "stop requested"): Promise<StopResult> => {
    stopping ??= (async () => {
      const deadline = Date.now() + (options.stopTimeoutMs ?? 10_000);
      let clean = true;
      logger.info({ reason }, "daemon stopping");
      deps.onStopping(reason);
      deps.controller.abort(new Error(`daemon stopping: ${reason}`));
      if (options.onStop) clean = await settleBy(Promise.resolve().then(() => options.onStop?.(deps.ctx)), deadline, logger);
      clean = (await deps.closeServer(deadline - Date.now())) && clean;
      try {
        deps.flush();
      } catch (err) {
        clean = false;
        logger.error({ err }, "final state flush failed");
      }
      if (handleSignals) {
        process.off("SIGTERM", onTerm);
        process.off("SIGINT", onTerm);
        process.off("SIGHUP", onHup);
      }
      options.signal?.removeEventListener("abort", onAbort);
      logger.info({ reason, clean }, "daemon stopped");
      const result = { reason, clean };
      resolveDone(result);
      return result;
    })();
    return stopping;
  };
  if (options.signal?.aborted) void stop("aborted");
  return { stop, done };
}

/** Waits for `work` until `deadline`; false when it failed or ran late. */
async function settleBy(work: Promise<unknown>, deadline: number, logger: Logger): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), Math.max(0, deadline - Date.now()))));
  try {
    const outcome = await Promise.race([work.then(() => "ok" as const), late]);
    if (outcome === "late") logger.warn("onStop ran past the stop timeout");
    return outcome === "ok";
  } catch (err) {
    logger.error({ err }, "onStop failed");
    return false;
  } finally {
    clearTimeout(timer);
  }
}
