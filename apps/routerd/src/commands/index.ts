import type { Command } from "../cli.js";
import { schemaCommand } from "./schema.js";
import { validateCommand } from "./validate.js";

export const COMMANDS: readonly Command[] = [validateCommand, schemaCommand];
