// routerd-dns-resolver: one daemon instance per DNSResolver.
// Exit codes: 0 stopped cleanly, 1 failure, 2 bad command line or config, 75 another instance is running.
import { daemonMain, exitWith, type StartDaemon } from "@routerd/daemon-kit";
import { parseCli, USAGE, type CliOptions } from "./cli.js";
import { startDnsResolverDaemon } from "./daemon.js";
import { DnssecValidator } from "./dnssec/validator.js";
import { bindToInterface } from "./upstream/bind-interface.js";

const NAME = "routerd-dns-resolver";

const startResolver: StartDaemon<CliOptions> = (o, logger) =>
  startDnsResolverDaemon({ ...o, logger, prepareUdp: bindToInterface, validator: (anchors) => new DnssecValidator({ trustAnchors: anchors }) });

exitWith(NAME, daemonMain(NAME, USAGE, parseCli(process.argv.slice(2)), startResolver));
