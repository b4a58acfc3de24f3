import type { Command } from "@routerd/cli";
import { traceStage } from "@routerd/resource";
import { planOnly, reconcileOnce } from "../core/engine.js";
import { planToJson, planToText, resultsToText } from "../core/format.js";
import { COMMON_OPTIONS, CONFIG_OPTION, hostContext, loadConfigCached, reportError } from "./common.js";

export const reconcileCommand: Command = {
  name: "reconcile",
  summary: "change the host to match the config, record ownership, clean up what routerd owns",
  usage: "reconcile --config FILE --once [--dry-run] [--json] [--allow-empty]",
  description:
    "Creates and updates what differs, records what it created in the ledger (<state-dir>/artifacts.json),\n" +
    "and removes only ledger-owned artifacts no resource wants any more. --dry-run prints the plan and\n" +
    "changes nothing. Exit 0 on success, 1 when the config is invalid or any step failed (the report and\n" +
    "the ledger say exactly what was applied). ROUTERD_TRACE=1 prints when each stage ends to stderr.",
  exitCodes: { 0: "applied (or, with --dry-run, planned)", 1: "invalid config, refused, or a step failed" },
  examples: [
    { command: "routerd reconcile --config /etc/routerd/router.yaml --once", description: "apply the config once" },
    { command: "routerd reconcile --config router.yaml --once --dry-run --json", description: "the plan as JSON; nothing changes" },
  ],
  seeAlso: ["routerd apply", "routerd plan", "docs/ownership.md"],
  options: {
    ...CONFIG_OPTION,
    once: { type: "boolean", description: "run one reconcile and exit (required; `routerd serve` runs the loop)" },
    "dry-run": { type: "boolean", description: "print the plan; change nothing" },
    json: { type: "boolean", description: "machine-readable output" },
    "allow-empty": { type: "boolean", description: "allow cleanup when the config has no resources" },
    ...COMMON_OPTIONS,
  },
  async run(v, io) {
    if (!v.once) {
      io.err("reconcile needs --once (use `routerd serve` for the continuous loop)");
      return 1;
    }
    const loaded = loadConfigCached(v, io, v["dry-run"] ? "read" : "write");
    if (!loaded) return 1;
    const { config, saveCache } = loaded;
    const opts = { host: hostContext(v), allowEmpty: Boolean(v["allow-empty"]), whileApplying: saveCache };
    try {
      if (v["dry-run"]) {
        const run = await planOnly(config, opts, String(v["state-dir"]));
        io.out(v.json ? JSON.stringify(planToJson(run.plan, { dryRun: true }), null, 2) : planToText(run.plan));
        return 0;
      }
      const r = await reconcileOnce(config, opts);
      saveCache(); // when nothing was applied
      if (v.json) {
        io.out(JSON.stringify(planToJson(r.plan, { results: r.results, ok: r.ok }), null, 2));
      } else {
        io.out(planToText(r.plan));
        io.out(resultsToText(r.results));
      }
      traceStage("report printed");
      return r.ok ? 0 : 1;
    } catch (err) {
      return reportError(err, io, Boolean(v.json));
    }
  },
};
