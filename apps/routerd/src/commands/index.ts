import type { Command } from "@routerd/cli";
import { adoptCommand } from "./adopt.js";
import { ledgerCommand } from "./ledger.js";
import { planCommand } from "./plan.js";
import { reconcileCommand } from "./reconcile.js";
import { schemaCommand } from "./schema.js";
import { serveCommand } from "./serve.js";
import { validateCommand } from "./validate.js";

export const COMMANDS: readonly Command[] = [validateCommand, planCommand, reconcileCommand, adoptCommand, ledgerCommand, serveCommand, schemaCommand];
