import { existsSync, statSync } from "node:fs";
import type { Command, Io, OptionValues } from "@routerd/cli";
import { GenerationStore, writeFileAtomic, type GenerationSummary } from "@routerd/resource";
import { refuseWhilePending, readPending } from "../generations/pending.js";
import { APPLY_EXIT_CODES, APPLY_OPTIONS, applyAndReport } from "./apply-run.js";
import { hostContext, reportError } from "./common.js";
import { loadGeneration, parseGenerationNumber } from "./generation-config.js";

const { config: _config, once: _once, ...OPTIONS } = APPLY_OPTIONS;

export const rollbackCommand: Command = {
  name: "rollback",
  summary: "list config generations, or re-apply an earlier one through the normal engine",
  usage: "rollback (--list | --to N) [--dry-run] [--json] [--confirm-within DURATION] [--keep-config-file]",
  description:
    "Every successful apply, reconcile and serve change stores the config as a numbered generation under\n" +
    "<state-dir>/generations (time, digest, who applied it, result). --list shows them; * marks the current one.\n" +
    "\n" +
    "--to N plans and applies generation N exactly like `routerd apply` (the same ownership rules: a rollback\n" +
    "never deletes what routerd does not own) and records it as a new generation. The file the current\n" +
    "generation was applied from gets generation N's text, so routerd serve and the next boot follow the\n" +
    "rollback (--keep-config-file leaves it alone). --dry-run prints the plan only; `routerd plan --generation N`\n" +
    "shows the same difference.",
  exitCodes: APPLY_EXIT_CODES,
  examples: [
    { command: "routerd rollback --list", description: "the generations kept, newest last" },
    { command: "routerd rollback --to 4 --dry-run", description: "what going back to generation 4 would change" },
    { command: "routerd rollback --to 4 --confirm-within 120s", description: "go back to generation 4, reverting unless confirmed" },
  ],
  seeAlso: ["routerd apply", "routerd plan --generation N", "routerd confirm", "docs/operations.md"],
  options: {
    list: { type: "boolean", description: "list the generations kept" },
    to: { type: "string", valueName: "N", description: "the generation to re-apply" },
    "keep-config-file": { type: "boolean", description: "do not write generation N's text back to the config file" },
    ...OPTIONS,
  },
  async run(v, io) {
    if (Boolean(v.list) === (v.to !== undefined)) {
      io.err("rollback needs exactly one of --list or --to N");
      return 1;
    }
    try {
      return v.list ? list(v, io) : await rollbackTo(v, io);
    } catch (err) {
      return reportError(err, io, Boolean(v.json));
    }
  },
};

function note(g: GenerationSummary): string {
  const c = g.confirmation;
  const confirmation = c ? (c.state === "pending" ? `pending until ${c.deadline}` : `${c.state} ${c.at ?? ""}`.trim()) : "";
  return [g.reason, confirmation].filter(Boolean).join("; ");
}

function list(v: OptionValues, io: Io): number {
  const stateDir = hostContext(v).stateDir;
  const all = new GenerationStore(stateDir).list();
  const pending = readPending(stateDir);
  if (v.json) {
    io.out(JSON.stringify({ current: all.at(-1)?.generation ?? null, pending: pending ?? null, generations: all }, null, 2));
    return 0;
  }
  if (!all.length) {
    io.out("No generations yet: a successful apply records the first one.");
    return 0;
  }
  const rows = all.map((g, i) => [
    `${i === all.length - 1 ? "*" : " "} ${g.generation}`,
    g.createdAt.replace("T", " ").replace(/\.\d+Z$/, "Z"),
    g.digest.slice(0, 19),
    `${g.appliedBy.user}@${g.appliedBy.host}${g.appliedBy.from ? ` from ${g.appliedBy.from}` : ""} (${g.appliedBy.command.replace(/^routerd /, "")})`,
    `${g.result.ok ? "ok" : "failed"} +${g.result.created} ~${g.result.updated} -${g.result.deleted}`,
    note(g),
  ]);
  const header = ["  GEN", "CREATED", "DIGEST", "APPLIED BY", "RESULT", "NOTE"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const r of [header, ...rows]) io.out(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd());
  if (pending) io.out(`Pending: generation ${pending.generation ?? "(being applied)"} reverts to ${pending.revertTo ?? "nothing"} at ${pending.deadline ?? "(apply running)"} unless \`routerd confirm\`.`);
  return 0;
}

async function rollbackTo(v: OptionValues, io: Io): Promise<number> {
  const host = hostContext(v);
  const n = parseGenerationNumber(v.to, "--to");
  const loaded = loadGeneration(host.stateDir, n, io);
  if (!loaded) return 1;
  const current = new GenerationStore(host.stateDir).newest();
  const path = current?.configPath ?? loaded.generation.configPath;
  if (!v["dry-run"]) {
    refuseWhilePending(host.stateDir);
    if (path && !v["keep-config-file"]) {
      writeFileAtomic(path, loaded.generation.config, existsSync(path) ? statSync(path).mode & 0o777 : 0o644);
      if (!v.json) io.err(`${path} now holds generation ${n}'s config.`);
    }
  }
  return applyAndReport(loaded.config, { text: loaded.generation.config, ...(path ? { path } : {}), command: "routerd rollback", reason: `rollback to generation ${n}` }, v, io);
}
