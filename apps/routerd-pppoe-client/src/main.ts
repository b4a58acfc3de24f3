// routerd-pppoe-client: one daemon instance per PPPoESession resource; also pppd's hook program.
// Exit codes: 0 stopped cleanly, 1 failure, 2 bad command line or config, 75 another instance is running.
// The daemon's modules (gRPC included) are imported only for the daemon, so a hook starts light.
import { resolve } from "node:path";
import { parseCli, USAGE } from "./cli.js";

/** After a stop, anything still pending must not keep the process alive (daemon-kit's exitWith, not imported
 * here: the kit loads gRPC, and a hook must start light). */
const EXIT_GRACE_MS = 2000;

async function runDaemonProcess(opts: { configPath: string; instance: string; runDir: string; stateDir: string; logLevel: string }): Promise<number> {
  const [{ pino }, { DaemonStartError }, { ConfigError }, { startPppoeDaemon }] = await Promise.all([
    import("pino"),
    import("@routerd/daemon-kit"),
    import("./config.js"),
    import("./daemon.js"),
  ]);
  const logger = pino({ name: "routerd-pppoe-client", level: opts.logLevel });
  const configPath = resolve(opts.configPath);
  try {
    const { daemon } = await startPppoeDaemon({
      configPath,
      instance: opts.instance,
      runDir: opts.runDir,
      stateDir: opts.stateDir,
      logger,
      debug: opts.logLevel === "debug" || opts.logLevel === "trace",
      program: resolve(process.argv[1] ?? ""),
    });
    const result = await daemon.done;
    return result.clean ? 0 : 1;
  } catch (err) {
    if (err instanceof ConfigError) {
      logger.fatal({ config: configPath, problems: err.problems }, "invalid config");
      process.stderr.write(`routerd-pppoe-client: ${err.message}\n`);
      return 2;
    }
    logger.fatal({ err, code: err instanceof DaemonStartError ? err.code : undefined }, "daemon failed to start");
    return err instanceof DaemonStartError && err.code === "ALREADY_RUNNING" ? 75 : 1;
  }
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

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
  },
  (err: unknown) => {
    process.stderr.write(`routerd-pppoe-client: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
