// routerd's commands: one module each. Adding a command is one module and one line in COMMANDS.
import { completionCommand, versionCommand, type Command, type Program } from "@routerd/cli";
import { adoptCommand } from "./adopt.js";
import { applyCommand } from "./apply.js";
import { checkCommand } from "./check.js";
import { confirmCommand } from "./confirm.js";
import { confirmWatchdogCommand } from "./confirm-watchdog.js";
import { ledgerCommand } from "./ledger.js";
import { planCommand } from "./plan.js";
import { reconcileCommand } from "./reconcile.js";
import { renderCommand } from "./render.js";
import { rollbackCommand } from "./rollback.js";
import { schemaCommand } from "./schema.js";
import { serveCommand } from "./serve.js";
import { statusCommand } from "./status.js";
import { validateCommand } from "./validate.js";
import { programVersion } from "./version.js";

export const COMMANDS: readonly Command[] = [
  validateCommand,
  checkCommand,
  renderCommand,
  planCommand,
  applyCommand,
  reconcileCommand,
  confirmCommand,
  rollbackCommand,
  adoptCommand,
  ledgerCommand,
  statusCommand,
  serveCommand,
  schemaCommand,
  versionCommand("routerd", () => programVersion("routerd")),
  completionCommand("routerd", () => PROGRAM),
  confirmWatchdogCommand,
];

export const PROGRAM: Program = {
  name: "routerd",
  summary: "declarative router control plane",
  description:
    "Describe the router in YAML; routerd validates it, shows a plan, changes the host to match, and removes\n" +
    "only what it created or adopted (the ledger, <state-dir>/artifacts.json, records what it owns).",
  version: programVersion("routerd").version,
  commands: COMMANDS,
};
