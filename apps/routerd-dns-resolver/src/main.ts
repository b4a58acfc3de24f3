// routerd-dns-resolver: one daemon instance per DNSResolver.
// Exit codes: 0 stopped cleanly, 1 failure, 2 bad command line or config, 75 another instance is running.
import { resolve } from "node:path";
import { DaemonStartError } from "@routerd/daemon-kit";
import { pino } from "pino";
import { parseCli, USAGE } from "./cli.js";
import { ConfigError } from "./config/config.js";
import { startDnsResolverDaemon } from "./daemon.js";
import { DnssecValidator } from "./dnssec/validator.js";
import { bindToInterface } from "./upstream/bind-interface.js";

/** After a stop, anything still pending (an upstream exchange) must not keep the process alive. */
const EXIT_GRACE_MS = 2000;

async function main(argv: string[]): Promise<number> {
  const cli = parseCli(argv);
  if (cli.kind === "help") {
    process.stdout.write(cli.text);
    return 0;
  }
  if (cli.kind === "error") {
    process.stderr.write(`routerd-dns-resolver: ${cli.message}\n\n${USAGE}`);
    return 2;
  }
  const opts = cli.options;
  const logger = pino({ name: "routerd-dns-resolver", level: opts.logLevel });
  const configPath = resolve(opts.configPath);
  try {
    const { daemon } = await startDnsResolverDaemon({
      configPath,
      instance: opts.instance,
      runDir: opts.runDir,
      stateDir: opts.stateDir,
      logger,
      prepareUdp: bindToInterface,
      validator: (anchors) => new DnssecValidator({ trustAnchors: anchors }),
    });
    const result = await daemon.done;
    return result.clean ? 0 : 1;
  } catch (err) {
    if (err instanceof ConfigError) {
      logger.fatal({ config: configPath, problems: err.problems }, "invalid config");
      process.stderr.write(`routerd-dns-resolver: ${err.message}\n`);
      return 2;
    }
    logger.fatal({ err, code: err instanceof DaemonStartError ? err.code : undefined }, "daemon failed to start");
    return err instanceof DaemonStartError && err.code === "ALREADY_RUNNING" ? 75 : 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
  },
  (err: unknown) => {
    process.stderr.write(`routerd-dns-resolver: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
