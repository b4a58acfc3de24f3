import type { Command } from "@routerd/cli";
import { confirmPending } from "../generations/confirm.js";
import { readPending } from "../generations/pending.js";
import { plainReconcile, revertIfDue, revertToText } from "../generations/revert.js";
import { pendingJson } from "./apply-run.js";
import { COMMON_OPTIONS, hostContext, reportError } from "./common.js";

export const confirmCommand: Command = {
  name: "confirm",
  summary: "keep the change applied with --confirm-within (or revert it now with --revert)",
  usage: "confirm [--revert] [--status] [--json] [--state-dir DIR]",
  description:
    "Confirms the change that `routerd apply --confirm-within` left pending: the watchdog stands down and the\n" +
    "generation stays. A deadline that has passed is honoured: the revert stands and confirm exits 1.\n" +
    "--revert restores the previous generation now. --status shows what is pending without changing it.",
  exitCodes: { 0: "confirmed (or reverted with --revert; or --status printed)", 1: "nothing was pending, the deadline had passed, or an error" },
  examples: [
    { command: "routerd confirm", description: "keep the change (run it over the new management path to prove that path works)" },
    { command: "routerd confirm --revert", description: "give up on the change now instead of waiting for the deadline" },
  ],
  seeAlso: ["routerd apply", "routerd rollback", "docs/operations.md"],
  options: {
    revert: { type: "boolean", description: "restore the previous generation now" },
    status: { type: "boolean", description: "print the pending change (deadline, generations) and change nothing" },
    json: { type: "boolean", description: "machine-readable output" },
    ...COMMON_OPTIONS,
  },
  async run(v, io) {
    const host = hostContext(v);
    const json = Boolean(v.json);
    const print = (obj: Record<string, unknown>, text: string, toErr = false) => (json ? io.out(JSON.stringify(obj, null, 2)) : (toErr ? io.err : io.out)(text));
    try {
      if (v.status) {
        const p = readPending(host.stateDir);
        print({ pending: p ? pendingJson(p) : null }, p ? `generation ${p.generation ?? "(being applied)"} waits for confirmation until ${p.deadline ?? "(its apply is running)"}; a revert restores ${p.revertTo === null ? "nothing (removes what routerd created)" : `generation ${p.revertTo}`}` : "Nothing waits for confirmation.");
        return 0;
      }
      if (v.revert) {
        const outcome = await revertIfDue({ stateDir: host.stateDir, command: "routerd confirm --revert", reconcile: plainReconcile(host) }, { force: true });
        if (!outcome) {
          print({ reverted: false, error: "nothing waits for confirmation" }, "Nothing waits for confirmation; nothing was reverted.", true);
          return 1;
        }
        print({ reverted: true, to: outcome.to, reason: outcome.reason, ok: outcome.result.ok, generation: outcome.recorded?.generation }, revertToText(outcome));
        return outcome.result.ok ? 0 : 1;
      }
      const o = confirmPending(host.stateDir);
      if (o.state === "confirmed") {
        print({ confirmed: true, generation: o.generation }, `Confirmed: generation ${o.generation ?? "(being applied)"} stays.`);
        return 0;
      }
      if (o.state === "too-late") {
        print({ confirmed: false, error: "deadline passed", deadline: o.pending.deadline }, `Too late: the deadline (${o.pending.deadline}) has passed; the previous generation is being restored.`, true);
        return 1;
      }
      const last = o.last;
      const text = last?.state === "reverted" ? `Nothing to confirm: generation ${last.generation} was reverted at ${last.at} (not confirmed by ${last.deadline}).` : "Nothing waits for confirmation.";
      print({ confirmed: false, error: "nothing pending", ...(last ? { last } : {}) }, text, true);
      return 1;
    } catch (err) {
      return reportError(err, io, json);
    }
  },
};
