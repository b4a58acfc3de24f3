// routerd-pppoe-client: one daemon instance per PPPoESession resource; also pppd's hook program.
// Exit codes: 0 stopped cleanly, 1 failure, 2 bad command line or config, 75 another instance is running.
// The daemon's modules (gRPC included) are imported only for the daemon, so a hook starts light.
import { resolve } from "node:path";
import { exitWith } from "@routerd/daemon-kit/cli";
import { parseCli, USAGE, type CliOptions } from "./cli.js";

/**
 * The daemon's modules (the kit with gRPC, pino, pppd's driver) load only here: a hook starts light. pppd
 * dials first (early-dial.ts), while they load.
 */
async function runDaemonProcess(options: CliOptions): Promise<number> {
  const program = resolve(process.argv[1] ?? "");
  const debug = options.logLevel === "debug" || options.logLevel === "trace";
  const { dialEarly } = await import("./session/early-dial.js");
  const early = await dialEarly({ ...options, configPath: resolve(options.configPath), debug, program, node: process.execPath }).catch((err: Error) => `early dial failed: ${err.message}`);
  const [{ runConfiguredDaemon }, { startPppoeDaemon }, { traceStage }] = await Promise.all([import("@routerd/daemon-kit"), import("./daemon.js"), import("@routerd/resource")]);
  traceStage("pppoe-client: modules loaded");
  return runConfiguredDaemon("routerd-pppoe-client", options, (o, logger) => {
    if (typeof early === "string") logger.debug({ reason: early }, "no early dial");
    return startPppoeDaemon({
      configPath: o.configPath,
      instance: o.instance,
      runDir: o.runDir,
      stateDir: o.stateDir,
      logger,
      debug,
      program,
      ...(typeof early === "string" ? {} : { early }),
    });
  });
}

async function main(argv: string[]): Promise<number> {
  const cli = parseCli(argv);
  switch (cli.kind) {
    case "help":
      process.stdout.write(cli.text);
      return 0;
    case "error":
      process.stderr.write(`routerd-pppoe-client: ${cli.message}\n\n${USAGE}`);
      return 2;
    case "hook":
      return (await import("./hook/report.js")).runHook(cli.argv);
    case "mpd5-files":
      return (await import("./mpd5/files.js")).writeMpd5Files(cli.argv);
    case "run":
      if (process.platform !== "linux") {
        // mpd5 from the daemon is not wired yet: its files come from `mpd5-files` for mpd5's own service.
        process.stderr.write(`routerd-pppoe-client: the daemon runs pppd and needs Linux; on ${process.platform} write mpd5's files with \`routerd-pppoe-client mpd5-files\` (docs/pppoe.md)\n`);
        return 1;
      }
      return runDaemonProcess(cli.options);
  }
}

exitWith("routerd-pppoe-client", main(process.argv.slice(2)));
