import type { Command } from "@routerd/cli";
import { findingsToText, runDoctor } from "../doctor/index.js";

export const doctorCommand: Command = {
  name: "doctor",
  summary: "check the host for what routerd needs (tools, kernel features, sysctls, sockets, clock, disk)",
  usage: "doctor [--json] [--state-dir DIR] [--run-dir DIR]",
  description:
    "Reads the host and changes nothing: nft and iproute2 present and new enough; the kernel's nftables,\n" +
    "conntrack, NAT and mark support (asked with `nft -c`, which the kernel parses but never commits); policy\n" +
    "routing; /proc/sys writable; the run dir usable for sockets (and whether routerd serve answers); the\n" +
    "clock set and synchronised; free space for the state and run dirs. Each problem comes with what to do.",
  exitCodes: { 0: "nothing is missing (warnings may be printed)", 1: "something routerd needs is missing or broken" },
  examples: [
    { command: "routerctl doctor", description: "before the first apply on a new router" },
    { command: "routerctl doctor --json | jq '.findings[] | select(.verdict != \"ok\")'", description: "only what needs attention" },
  ],
  seeAlso: ["routerd check", "routerctl status"],
  options: {
    json: { type: "boolean", description: "print {ok, findings[]} as JSON" },
    "state-dir": { type: "string", default: "/var/lib/routerd", valueName: "DIR", description: "routerd's state directory", complete: "dir" },
    "run-dir": { type: "string", default: "/run/routerd", valueName: "DIR", description: "where daemon sockets live", complete: "dir" },
  },
  async run(v, io) {
    const findings = await runDoctor({ stateDir: String(v["state-dir"]), runDir: String(v["run-dir"]), now: Date.now() });
    const failed = findings.some((f) => f.verdict === "fail");
    io.out(v.json ? JSON.stringify({ ok: !failed, findings }, null, 2) : findingsToText(findings));
    return failed ? 1 : 0;
  },
};
