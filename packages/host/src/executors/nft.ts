// nftables: each routerd table is replaced whole in one transaction, checked with `nft -c` first, so there
// is never a moment without rules.
import type { Attributes } from "@routerd/resource";
import type { CommandRunner } from "../exec.js";

export function replaceTableScript(attrs: Attributes): string {
  const family = String(attrs.family);
  const table = String(attrs.table);
  // "add, delete, define" in one file: the kernel swaps the old table for the new one atomically.
  return `table ${family} ${table} {}\ndelete table ${family} ${table}\n${String(attrs.content)}`;
}

export async function replaceTable(runner: CommandRunner, attrs: Attributes): Promise<void> {
  const script = replaceTableScript(attrs);
  const check = await runner.run("nft", ["-c", "-f", "-"], { input: script });
  if (check.code !== 0) throw new Error(`nft rejected the rendered table (nothing was changed): ${check.stderr.trim()}`);
  const apply = await runner.run("nft", ["-f", "-"], { input: script });
  if (apply.code !== 0) throw new Error(`nft -f failed: ${apply.stderr.trim()}`);
}

export async function deleteTable(runner: CommandRunner, attrs: { family: string; table: string }): Promise<void> {
  const r = await runner.run("nft", ["delete", "table", attrs.family, attrs.table]);
  if (r.code !== 0 && !/No such file or directory/.test(r.stderr)) throw new Error(`nft delete table failed: ${r.stderr.trim()}`);
}
