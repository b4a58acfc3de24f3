// Loading a stored generation's config as if it were a file: validated again by this routerd.
import { loadConfig, type RouterConfig } from "@routerd/api";
import type { Io } from "@routerd/cli";
import { GenerationStore, RouterdError, type Generation } from "@routerd/resource";
import { formatIssue } from "./validate.js";

export function parseGenerationNumber(value: string | boolean | undefined, option: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new RouterdError("InvalidOption", `${option} ${String(value)} is not a generation number`, { hint: "routerd rollback --list shows the generations kept" });
  return n;
}

/** The generation's config, validated; undefined (issues printed) when this routerd no longer accepts it. */
export function loadGeneration(stateDir: string, n: number, io: Io): { generation: Generation; config: RouterConfig } | undefined {
  const generation = new GenerationStore(stateDir).require(n);
  const result = loadConfig(generation.config, `generation ${n}`);
  for (const i of result.issues) io.err(formatIssue(i));
  return result.config ? { generation, config: result.config } : undefined;
}
