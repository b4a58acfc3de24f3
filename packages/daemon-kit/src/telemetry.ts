// A daemon's share of the ObservabilityPipeline: routerd serve writes the settings to a file and names it in
// ROUTERD_TELEMETRY; the daemon sends its events and its pino log lines to the sinks there, and follows
// changes to the file. Serve itself passes its own Pipeline instead.
import { Pipeline, SETTINGS_ENV, readSettings, watchSettings } from "@routerd/telemetry";
import { pino, type Logger } from "pino";

export interface DaemonTelemetry {
  pipeline: Pipeline;
  close(): Promise<void>;
}

/** Also sends everything `logger` (and loggers derived from it) writes into the pipeline. */
function teeLogs(logger: Logger, pipeline: Pipeline): void {
  const sym = pino.symbols.streamSym as unknown as keyof Logger;
  const original = logger[sym] as unknown as pino.DestinationStream;
  const both = pino.multistream([
    { level: "trace", stream: original },
    { level: "trace", stream: pipeline.logStream() },
  ]);
  (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] = both;
}

/** The daemon's telemetry when serve configured one (ROUTERD_TELEMETRY set), else undefined. */
export function daemonTelemetry(source: { daemon: string; instance: string }, logger: Logger, env: NodeJS.ProcessEnv): DaemonTelemetry | undefined {
  const path = env[SETTINGS_ENV];
  if (!path) return undefined;
  const pipeline = new Pipeline(source);
  const load = (what: string) => (err: unknown) => logger.warn({ err, path }, what);
  try {
    pipeline.configure(readSettings(path));
  } catch (err) {
    load("telemetry settings unreadable; exporting nothing until they change")(err);
  }
  teeLogs(logger, pipeline);
  const unwatch = watchSettings(path, (s) => pipeline.configure(s), load("telemetry settings unreadable; keeping the previous ones"));
  return {
    pipeline,
    close: async () => {
      unwatch();
      await pipeline.flush();
      pipeline.close();
    },
  };
}
