// What every daemon's main.ts does: print help or a command-line error, start the daemon with a logger,
// wait for its stop and exit with the code; never hang on something still pending after a stop.
// Exit codes: 0 stopped cleanly, 1 failure, 2 bad command line or config, 75 another instance is running.
import { resolve } from "node:path";
import { pino, type Logger } from "pino";
import { ConfigError, type DaemonCliOptions, type DaemonCliResult } from "./cli.js";
import { DaemonStartError } from "./errors.js";
import type { DaemonHandle } from "./options.js";

export { exitWith } from "./cli.js";

/** Starts the daemon from its options (configPath made absolute) and a logger named after the program. */
export type StartDaemon<O extends DaemonCliOptions> = (options: O, logger: Logger) => Promise<{ daemon: DaemonHandle }>;

/** The daemon's life once its command line is parsed, as an exit code. */
export async function runConfiguredDaemon<O extends DaemonCliOptions>(program: string, options: O, start: StartDaemon<O>): Promise<number> {
  const logger = pino({ name: program, level: options.logLevel });
  const configPath = resolve(options.configPath);
  try {
    const { daemon } = await start({ ...options, configPath }, logger);
    const result = await daemon.done;
    return result.clean ? 0 : 1;
  } catch (err) {
    if (err instanceof ConfigError) {
      logger.fatal({ config: configPath, problems: err.problems }, "invalid config");
      process.stderr.write(`${program}: ${err.message}\n`);
      return 2;
    }
    logger.fatal({ err, code: err instanceof DaemonStartError ? err.code : undefined }, "daemon failed to start");
    return err instanceof DaemonStartError && err.code === "ALREADY_RUNNING" ? 75 : 1;
  }
}

/** main() of a config-file daemon: help (0), a command-line error with the usage (2), or the daemon's run. */
export async function daemonMain<O extends DaemonCliOptions>(program: string, usage: string, cli: DaemonCliResult<O>, start: StartDaemon<O>): Promise<number> {
  if (cli.kind === "help") {
    process.stdout.write(cli.text);
    return 0;
  }
  if (cli.kind === "error") {
    process.stderr.write(`${program}: ${cli.message}\n\n${usage}`);
    return 2;
  }
  return runConfiguredDaemon(program, cli.options, start);
}

/** Whether a process with this pid exists (EPERM: it exists, owned by someone else); one implementation, the lock's. */
export { pidAlive } from "@routerd/resource";
