// Direct executors: sysctl and hostname through /proc, files through atomic block edits.
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { writeFileAtomic, type Attributes } from "@routerd/resource";
import { rooted, type HostContext } from "../context.js";
import { removeBlock, upsertBlock } from "../file-blocks.js";
import { sysctlPath } from "../observers/system.js";

export function writeSysctl(attrs: Attributes): void {
  writeFileSync(sysctlPath(String(attrs.key)), `${String(attrs.value)}\n`);
}

export function writeHostname(attrs: Attributes): void {
  writeFileSync("/proc/sys/kernel/hostname", String(attrs.hostname));
}

export function writeFileBlock(ctx: HostContext, attrs: Attributes): void {
  const path = rooted(ctx, String(attrs.path));
  const old = existsSync(path) ? readFileSync(path, "utf8") : "";
  const mode = existsSync(path) ? statSync(path).mode & 0o7777 : 0o644;
  writeFileAtomic(path, upsertBlock(old, String(attrs.block), String(attrs.content)), mode);
}

export function deleteFileBlock(ctx: HostContext, attrs: Attributes): void {
  const path = rooted(ctx, String(attrs.path));
  if (!existsSync(path)) return;
  const old = readFileSync(path, "utf8");
  const next = removeBlock(old, String(attrs.block));
  if (next !== old) writeFileAtomic(path, next, statSync(path).mode & 0o7777);
}
