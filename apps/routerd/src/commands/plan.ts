import type { Command } from "@routerd/cli";
import { planOnly } from "../core/engine.js";
import { planToJson, planToText } from "../core/format.js";
import { hasChanges } from "../core/plan.js";
import { loadGeneration, parseGenerationNumber } from "./generation-config.js";
import { parseSupervisorMode } from "../core/supervisor-mode.js";
import { COMMON_OPTIONS, CONFIG_OPTION, SUPERVISOR_OPTION, hostContext, loadConfigOrExit, reportError } from "./common.js";

export const planCommand: Command = {
  name: "plan",
  summary: "show what reconcile would change; touches nothing",
  usage: "plan (--config FILE | --generation N) [--json] [--detailed-exitcode] [--verbose]",
  description:
    "Per resource: + create, ~ update (old → new), - delete; ! orphan, drift or adoption candidate; ? unknown.\n" +
    "A resource waiting for a status-sourced value (xxxFrom) is shown as pending, with what it waits for; what it has is kept.\n" +
    "Reads the host and the state directory; changes nothing. --generation N plans a stored generation instead\n" +
    "of a file: what `routerd rollback --to N` would change.",
  exitCodes: { 0: "success (with --detailed-exitcode: no changes)", 1: "invalid config or an error reading state", 2: "changes pending (only with --detailed-exitcode)" },
  examples: [
    { command: "routerd plan --config /etc/routerd/router.yaml", description: "what apply would change" },
    { command: "routerd plan --generation 4", description: "what rolling back to generation 4 would change" },
    { command: "routerd plan --config router.yaml --detailed-exitcode >/dev/null; echo $?", description: "2 when the host differs from the config (for monitoring)" },
  ],
  seeAlso: ["routerd apply", "routerd render"],
  options: {
    ...CONFIG_OPTION,
    generation: { type: "string", valueName: "N", description: "plan stored generation N (routerd rollback --list) instead of --config" },
    json: { type: "boolean", description: "machine-readable plan" },
    "detailed-exitcode": { type: "boolean", description: "exit 2 when there are changes, 0 when there are none" },
    verbose: { type: "boolean", short: "v", description: "also list unchanged and observed artifacts" },
    "allow-empty": { type: "boolean", description: "plan cleanup even when the config has no resources" },
    ...SUPERVISOR_OPTION,
    ...COMMON_OPTIONS,
  },
  async run(v, io) {
    if (v.generation !== undefined && v.config !== undefined) {
      io.err("plan takes --config FILE or --generation N, not both");
      return 1;
    }
    try {
      const config = v.generation !== undefined ? loadGeneration(String(v["state-dir"]), parseGenerationNumber(v.generation, "--generation"), io)?.config : loadConfigOrExit(v, io, "read");
      if (!config) return 1;
      const supervisor = v.supervisor !== undefined ? parseSupervisorMode(v.supervisor) : undefined;
      const run = await planOnly(config, { host: hostContext(v), allowEmpty: Boolean(v["allow-empty"]), ...(supervisor ? { supervisor } : {}) }, String(v["state-dir"]));
      io.out(v.json ? JSON.stringify(planToJson(run.plan), null, 2) : planToText(run.plan, { verbose: Boolean(v.verbose) }));
      return v["detailed-exitcode"] && hasChanges(run.plan) ? 2 : 0;
    } catch (err) {
      return reportError(err, io, Boolean(v.json));
    }
  },
};
