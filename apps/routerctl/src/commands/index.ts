// routerctl's commands: one module each. A helper adding `routerctl dns ...` adds one module and one line here.
import { completionCommand, versionCommand, type Command, type Program } from "@routerd/cli";
import { bgpCommand } from "./bgp.js";
import { daemonCommand } from "./daemon.js";
import { describeCommand } from "./describe.js";
import { dnsCommand } from "./dns.js";
import { doctorCommand } from "./doctor.js";
import { eventsCommand } from "./events.js";
import { getCommand } from "./get.js";
import { healthCommand } from "./health.js";
import { statusCommand } from "./status.js";
import { programVersion } from "./version.js";

export const COMMANDS: readonly Command[] = [
  statusCommand,
  getCommand,
  describeCommand,
  doctorCommand,
  healthCommand,
  eventsCommand,
  daemonCommand,
  bgpCommand,
  dnsCommand,
  versionCommand("routerctl", () => programVersion("routerctl")),
  completionCommand("routerctl", () => PROGRAM),
];

export const PROGRAM: Program = {
  name: "routerctl",
  summary: "query routerd and its daemons: status, resources, events, host checks",
  description:
    "routerctl asks routerd serve and its daemons over their Unix sockets (<run-dir>/<daemon>/<instance>.sock)\n" +
    "and reads routerd's state directory (status, ledger, events) for what works without serve running.",
  version: programVersion("routerctl").version,
  commands: COMMANDS,
};
