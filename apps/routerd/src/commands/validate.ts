import { readFileSync } from "node:fs";
import { formatLocated } from "@routerd/resource";
import { loadConfig, type ConfigIssue, type LoadResult } from "@routerd/api";
import type { Command, Io } from "@routerd/cli";

export function formatIssue(i: ConfigIssue): string {
  return formatLocated(
    { file: i.file, line: i.line, column: i.column, ...(i.resource ? { resource: i.resource } : {}), ...(i.field ? { field: i.field } : {}) },
    i.severity,
    i.message,
    i.hint,
  );
}

/** Loads and validates a config file; prints issues; undefined config means stop with exit 1. */
export function loadOrReport(path: string | undefined, io: Io, json = false): LoadResult {
  if (!path) {
    io.err("--config FILE is required");
    return { issues: [] };
  }
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    io.err(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return { issues: [] };
  }
  const result = loadConfig(text, path);
  if (!json) for (const i of result.issues) io.err(formatIssue(i));
  return result;
}

export const validateCommand: Command = {
  name: "validate",
  summary: "check a config file: schema, references and conflicts; changes nothing",
  usage: "validate --config FILE [--json]",
  description: "Parses the YAML and checks every resource: fields, references between resources, conflicts.\nEvery problem is printed with file:line:column, the resource and the field, and what to write instead.",
  exitCodes: { 0: "the config is valid (warnings are printed)", 1: "the config has errors (all of them are printed)" },
  examples: [{ command: "routerd validate --config /etc/routerd/router.yaml", description: "check an edited config before applying it" }],
  seeAlso: ["routerd check", "routerd plan"],
  options: {
    config: { type: "string", short: "c", valueName: "FILE", description: "router config (YAML)", complete: "file" },
    json: { type: "boolean", description: "print {valid, issues[]} as JSON" },
  },
  async run(v, io) {
    const json = Boolean(v.json);
    const result = loadOrReport(v.config as string | undefined, io, json);
    if (json) io.out(JSON.stringify({ valid: Boolean(result.config), issues: result.issues }, null, 2));
    if (!result.config) return 1;
    if (!json) io.out(`${v.config}: valid (${result.config.resources.length} resources${result.issues.length ? `, ${result.issues.length} warnings` : ""})`);
    return 0;
  },
};
