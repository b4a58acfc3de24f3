// routerd-bgp: one instance per BGPRouter. Exit codes: 0 stopped cleanly, 1 failure, 2 bad command line or
// config, 75 another instance is running.
import { resolve } from "node:path";
import { DaemonStartError, exitWith } from "@routerd/daemon-kit";
import { pino } from "pino";
import { parseCli, USAGE } from "./cli.js";
import { ConfigError } from "./config/config.js";
import { startBgpDaemon } from "./daemon.js";


async function main(argv: string[]): Promise<number> {
  const cli = parseCli(argv);
  if (cli.kind === "help") {
    process.stdout.write(cli.text);
    return 0;
  }
  if (cli.kind === "error") {
    process.stderr.write(`routerd-bgp: ${cli.message}\n\n${USAGE}`);
    return 2;
  }
  const o = cli.options;
  const logger = pino({ name: "routerd-bgp", level: o.logLevel });
  const configPath = resolve(o.configPath);
  try {
    const { daemon } = await startBgpDaemon({
      configPath,
      instance: o.instance,
      runDir: o.runDir,
      stateDir: o.stateDir,
      root: o.root,
      gobgpd: o.gobgpd,
      keepGobgpd: o.keepGobgpd,
      staleHoldMs: o.staleHoldMs,
      orphanGraceMs: o.orphanGraceMs,
      logger,
    });
    const result = await daemon.done;
    return result.clean ? 0 : 1;
  } catch (err) {
    if (err instanceof ConfigError) {
      logger.fatal({ config: configPath, problems: err.problems }, "invalid config");
      process.stderr.write(`routerd-bgp: ${err.message}\n`);
      return 2;
    }
    logger.fatal({ err, code: err instanceof DaemonStartError ? err.code : undefined }, "daemon failed to start");
    return err instanceof DaemonStartError && err.code === "ALREADY_RUNNING" ? 75 : 1;
  }
}

exitWith("routerd-bgp", main(process.argv.slice(2)));
