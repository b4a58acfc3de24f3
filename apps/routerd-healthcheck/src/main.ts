// routerd-healthcheck: one daemon instance runs every HealthCheck probe of the router.
// Exit codes: 0 stopped cleanly, 1 failure, 2 bad command line or config, 75 another instance is running.
import { daemonMain, exitWith } from "@routerd/daemon-kit";
import { parseCli, USAGE } from "./cli.js";
import { startHealthcheckDaemon } from "./daemon.js";

const NAME = "routerd-healthcheck";

exitWith(NAME, daemonMain(NAME, USAGE, parseCli(process.argv.slice(2)), (o, logger) => startHealthcheckDaemon({ ...o, logger })));
