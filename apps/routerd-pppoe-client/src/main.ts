// routerd-pppoe-client: one daemon instance per PPPoESession resource; also pppd's hook program.
// Exit codes: 0 stopped cleanly, 1 failure, 2 bad command line or config, 75 another instance is running.
// The daemon's modules (gRPC included) are imported only for the daemon, so a hook starts light.
import { resolve } from "node:path";
import { exitWith } from "@routerd/daemon-kit/cli";
import { parseCli, USAGE, type CliOptions } from "./cli.js";

/** The daemon's modules (the kit with gRPC, pino, pppd's driver) load only here: a hook starts light. */
async function runDaemonProcess(options: CliOptions): Promise<number> {
  const [{ runConfiguredDaemon }, { startPppoeDaemon }] = await Promise.all([import("@routerd/daemon-kit"), import("./daemon.js")]);
  return runConfiguredDaemon("routerd-pppoe-client", options, (o, logger) =>
    startPppoeDaemon({
      configPath: o.configPath,
      instance: o.instance,
      runDir: o.runDir,
      stateDir: o.stateDir,
      logger,
      debug: o.logLevel === "debug" || o.logLevel === "trace",
      program: resolve(process.argv[1] ?? ""),
    }),
  );
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
