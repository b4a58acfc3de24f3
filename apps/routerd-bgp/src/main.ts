// routerd-bgp: one instance per BGPRouter. Exit codes: 0 stopped cleanly, 1 failure, 2 bad command line or
// config, 75 another instance is running.
import "./heap.js"; // first: V8's heap growth for the table loads
import { daemonMain, exitWith } from "@routerd/daemon-kit";
import { parseCli, USAGE } from "./cli.js";
import { startBgpDaemon } from "./daemon.js";

const NAME = "routerd-bgp";

exitWith(NAME, daemonMain(NAME, USAGE, parseCli(process.argv.slice(2)), (o, logger) => startBgpDaemon({ ...o, logger })));
