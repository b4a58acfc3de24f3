import type { Command } from "@routerd/cli";
import { APPLY_EXIT_CODES, APPLY_OPTIONS, runApply } from "./apply-run.js";

export const applyCommand: Command = {
  name: "apply",
  summary: "apply the config once (reconcile), optionally reverting unless confirmed in time",
  usage: "apply --config FILE [--once] [--dry-run] [--json] [--confirm-within DURATION [--wait]] [--keep-generations N]",
  description:
    "The same engine, output and exit codes as `routerd reconcile --once`: creates and updates what differs,\n" +
    "removes only what routerd owns and no resource wants, and records a successful config as a new\n" +
    "generation (<state-dir>/generations; routerd rollback --list).\n" +
    "\n" +
    "--confirm-within DURATION makes a risky change safe: before the host changes, routerd records a pending\n" +
    "confirmation and starts a detached watchdog. Unless `routerd confirm` arrives within DURATION after the\n" +
    "apply, the previous generation is restored by an ordinary reconcile, and the config file is written back\n" +
    "with its text (the rejected config stays a generation). The revert happens even when this process, the\n" +
    "SSH session or routerd serve is killed: the watchdog and routerd serve (also after a restart) both honour\n" +
    "the deadline. While a change is pending, every other apply is refused.",
  exitCodes: APPLY_EXIT_CODES,
  examples: [
    { command: "routerd apply --config /etc/routerd/router.yaml --once", description: "apply the config once" },
    { command: "routerd apply --config /etc/routerd/router.yaml --once --confirm-within 120s", description: "apply; unless `routerd confirm` follows within two minutes, the previous generation comes back" },
    { command: "routerd apply --config router.yaml --confirm-within 2m --wait", description: "as above, waiting in the foreground; press Enter to confirm" },
  ],
  seeAlso: ["routerd confirm", "routerd rollback", "routerd plan", "docs/operations.md"],
  options: APPLY_OPTIONS,
  run: (v, io) => runApply("apply", v, io),
};
