import type { Command } from "@routerd/cli";
import { APPLY_EXIT_CODES, APPLY_OPTIONS, runApply } from "./apply-run.js";

export const reconcileCommand: Command = {
  name: "reconcile",
  summary: "change the host to match the config, record ownership, clean up what routerd owns",
  usage: "reconcile --config FILE --once [--dry-run] [--json] [--allow-empty] [--confirm-within DURATION] [--install-packages]",
  description:
    "Creates and updates what differs, records what it created in the ledger (<state-dir>/artifacts.json),\n" +
    "and removes only ledger-owned artifacts no resource wants any more. --dry-run prints the plan and\n" +
    "changes nothing. A successful run records the config as a generation (routerd rollback --list).\n" +
    "`routerd apply` is the same command. ROUTERD_TRACE=1 prints when each stage ends to stderr.",
  exitCodes: APPLY_EXIT_CODES,
  examples: [
    { command: "routerd reconcile --config /etc/routerd/router.yaml --once", description: "apply the config once" },
    { command: "routerd reconcile --config router.yaml --once --dry-run --json", description: "the plan as JSON; nothing changes" },
    { command: "routerd reconcile --config /etc/routerd/router.yaml --once --install-packages", description: "also install the packages the config needs (dnsmasq, chrony, ...)" },
  ],
  seeAlso: ["routerd apply", "routerd plan", "docs/ownership.md"],
  options: APPLY_OPTIONS,
  run: (v, io) => runApply("reconcile", v, io),
};
