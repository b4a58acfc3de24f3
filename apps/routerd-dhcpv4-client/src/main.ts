// Standalone entry: one DhcpV4Client on one interface; lease events on stdout, pino logs on stderr.
// It reports leases only: applying the address is routerd core's job.
import { pino } from "pino";
import { parseCliArgs, USAGE } from "./cli-args.js";
import { DhcpV4Client } from "./client.js";
import { eventLine } from "./event-line.js";

const STOP_TIMEOUT_MS = 5000;

async function main(): Promise<number> {
  const parsed = parseCliArgs(process.argv.slice(2));
  if (!parsed.ok) {
    process.stderr.write(parsed.help ? parsed.error : `routerd-dhcpv4-client: ${parsed.error}\n\n${USAGE}`);
    return parsed.help ? 0 : 2;
  }
  const { client: clientOpts, json, logLevel } = parsed.config;
  const logger = pino({ name: "routerd-dhcpv4-client", level: logLevel }, pino.destination({ dest: 2, sync: true }));
  const client = new DhcpV4Client({ ...clientOpts, logger });
  client.on("event", (ev) => process.stdout.write(eventLine(ev, clientOpts.interface, json) + "\n"));

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    // A stuck send must not keep a supervisor waiting forever.
    setTimeout(() => process.exit(1), STOP_TIMEOUT_MS).unref();
    client.stop().then(
      () => {
        process.exitCode = 0;
      },
      (err: Error) => {
        logger.error({ err: err.message }, "stop failed");
        process.exitCode = 1;
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGUSR1", () => client.renew());
  process.on("SIGUSR2", () => void client.release());

  try {
    await client.start();
  } catch (err) {
    logger.fatal({ err: (err as Error).message }, "cannot start");
    return 1;
  }
  return 0;
}

main().then(
  (code) => {
    if (code !== 0) process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`routerd-dhcpv4-client: ${String(err)}\n`);
    process.exit(1);
  },
);
