// Entry point. With --instance: the daemon form routerd runs (socket, status, events, GetLease). Without:
// the standalone form, one client whose events are JSON lines on stdout (tests, debugging, benchmarks).
// Exit codes: 0 stopped cleanly, 1 failure, 2 bad command line, 75 another instance is running.
import pino, { type Logger } from "pino";
import { parseCliArgs, USAGE, type CliOptions } from "./args.js";
import { DhcpV6Client } from "./client.js";
import { eventJson } from "./event-json.js";

/** After a stop, anything still pending (a socket close) must not keep the process alive. */
const EXIT_GRACE_MS = 2000;

function clientOptions(o: CliOptions) {
  const { stateDir: _s, daemon: _d, logLevel: _l, ...client } = o;
  return client;
}

async function runDaemonForm(o: CliOptions, logger: Logger): Promise<number> {
  const d = o.daemon!;
  // Loaded only here: the standalone form needs neither gRPC nor the daemon kit.
  const [{ DaemonStartError }, { startDhcpv6Daemon }] = await Promise.all([import("@routerd/daemon-kit"), import("./daemon.js")]);
  try {
    const { daemon, client } = await startDhcpv6Daemon({ instance: d.instance, runDir: d.runDir, stateDir: o.stateDir, logger, client: clientOptions(o) });
    process.on("SIGUSR1", () => client.renew());
    const result = await daemon.done;
    return result.clean ? 0 : 1;
  } catch (err) {
    logger.fatal({ err, code: err instanceof DaemonStartError ? err.code : undefined }, "daemon failed to start");
    return err instanceof DaemonStartError && err.code === "ALREADY_RUNNING" ? 75 : 1;
  }
}

async function runStandalone(o: CliOptions, logger: Logger): Promise<number> {
  const client = new DhcpV6Client({
    ...clientOptions(o),
    stateDir: o.stateDir,
    logger,
    onEvent: (e) => process.stdout.write(`${JSON.stringify(eventJson(e, o.interface, Date.now()))}\n`),
  });
  try {
    await client.start();
  } catch (err) {
    logger.fatal({ err }, "cannot start");
    return 1;
  }
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal, release: o.releaseOnStop }, "stopping");
      client.stop({ release: o.releaseOnStop }).then(
        () => resolve(0),
        (err: unknown) => {
          logger.error({ err }, "stop failed");
          resolve(1);
        },
      );
    };
    process.on("SIGTERM", () => stop("SIGTERM"));
    process.on("SIGINT", () => stop("SIGINT"));
    process.on("SIGUSR1", () => client.renew());
  });
}

async function main(): Promise<number> {
  const parsed = parseCliArgs(process.argv.slice(2));
  if (!parsed.ok && "help" in parsed) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (!parsed.ok) {
    process.stderr.write(`${parsed.errors.map((e) => `error: ${e}`).join("\n")}\n${USAGE}\n`);
    return 2;
  }
  const o = parsed.options;
  if (o.daemon) {
    // The daemon logs (events included) as pino JSON on stdout, like every routerd daemon.
    return runDaemonForm(o, pino({ name: "routerd-dhcpv6-client", level: o.logLevel }));
  }
  const logger = pino({ level: o.logLevel, base: { name: "routerd-dhcpv6-client" } }, pino.destination({ dest: 2, sync: true }));
  return runStandalone(o, logger);
}

main().then(
  (code) => {
    process.exitCode = code;
    setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
  },
  (err: unknown) => {
    process.stderr.write(`fatal: ${String(err)}\n`);
    process.exit(1);
  },
);
