// Standalone entry: one client instance for one interface; events as JSON lines on stdout, pino logs on stderr.
import pino from "pino";
import { parseCliArgs, USAGE } from "./args.js";
import { DhcpV6Client } from "./client.js";
import { eventJson } from "./event-json.js";

async function main(): Promise<number> {
  const parsed = parseCliArgs(process.argv.slice(2));
  if (!parsed.ok) {
    process.stderr.write(`${parsed.errors.map((e) => `error: ${e}`).join("\n")}\n${USAGE}\n`);
    return 2;
  }
  const o = parsed.options;
  const logger = pino({ level: o.logLevel, base: { name: "routerd-dhcpv6-client" } }, pino.destination({ dest: 2, sync: true }));
  const client = new DhcpV6Client({
    ...o,
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

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`fatal: ${String(err)}\n`);
    process.exit(1);
  },
);
