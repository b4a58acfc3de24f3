// Config generations: every config routerd applied successfully, numbered, under <state-dir>/generations/.
// One file per generation (NNNNNN.json, written atomically) holding the config text as the operator wrote it,
// its digest, who applied it and the result. Rollback re-applies that text through the normal engine.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, unlinkSync } from "node:fs";
import { hostname, userInfo } from "node:os";
import { join } from "node:path";
import { withLock, writeFileAtomic } from "./atomic-file.js";
import { RouterdError } from "./errors.js";

export const GENERATIONS_DIR = "generations";
export const DEFAULT_GENERATIONS_KEPT = 20;

/** Who applied a generation and with which command. */
export interface AppliedBy {
  command: string;
  user: string;
  host: string;
  pid: number;
  /** The SSH client address, when the command ran in an SSH session. */
  from?: string;
}

export interface GenerationResult {
  ok: boolean;
  created: number;
  updated: number;
  deleted: number;
}

export type ConfirmationState = "pending" | "confirmed" | "reverted";

export interface Generation {
  generation: number;
  createdAt: string;
  /** `sha256:<hex>` of the config text. */
  digest: string;
  /** The file the config was applied from (rollback and revert write the restored text back to it). */
  configPath?: string;
  appliedBy: AppliedBy;
  /** Why it was applied when an operator did not type it: `rollback to generation 3`, `revert: ...`. */
  reason?: string;
  result: GenerationResult;
  confirmation?: { state: ConfirmationState; deadline?: string; at?: string };
  config: string;
}

/** A generation without its config text, for listings. */
export type GenerationSummary = Omit<Generation, "config">;

export function configDigest(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

export function appliedBy(command: string, env: NodeJS.ProcessEnv = process.env): AppliedBy {
  let user = env.SUDO_USER ?? env.USER ?? "unknown";
  try {
    user = env.SUDO_USER ?? userInfo().username;
  } catch {
    /* no passwd entry (containers): keep the environment's answer */
  }
  const from = env.SSH_CONNECTION?.split(" ")[0] ?? env.SSH_CLIENT?.split(" ")[0];
  return { command, user, host: hostname(), pid: process.pid, ...(from ? { from } : {}) };
}

const FILE = /^(\d{6,})\.json$/;
const fileName = (n: number) => `${String(n).padStart(6, "0")}.json`;

export class GenerationStore {
  readonly dir: string;
  constructor(readonly stateDir: string) {
    this.dir = join(stateDir, GENERATIONS_DIR);
  }

  /** Generation numbers present, oldest first. */
  numbers(): number[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .map((f) => FILE.exec(f)?.[1])
      .filter((x): x is string => x !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }

  get(n: number): Generation | undefined {
    const path = join(this.dir, fileName(n));
    if (!existsSync(path)) return undefined;
    try {
      return JSON.parse(readFileSync(path, "utf8")) as Generation;
    } catch (err) {
      throw new RouterdError("GenerationUnreadable", `generation file ${path} is unreadable: ${(err as Error).message}`, { hint: "move the file aside; the other generations are unaffected" });
    }
  }

  /** The generation, or an error that lists what exists. */
  require(n: number): Generation {
    const g = this.get(n);
    if (g) return g;
    const have = this.numbers();
    throw new RouterdError("GenerationNotFound", `there is no generation ${n}`, { hint: have.length ? `generations kept: ${have.join(", ")} (routerd rollback --list)` : "no generation has been recorded yet: apply a config first" });
  }

  newest(): Generation | undefined {
    const all = this.numbers();
    return all.length ? this.get(all[all.length - 1]!) : undefined;
  }

  list(): GenerationSummary[] {
    return this.numbers().flatMap((n) => {
      const g = this.get(n);
      if (!g) return [];
      const { config: _c, ...summary } = g;
      return [summary];
    });
  }

  /**
   * Records `config` as the next generation unless it is the newest one already (same digest): re-applying
   * an unchanged config adds nothing to roll back to. Prunes to `keep`, never removing the newest or `protect`.
   */
  record(input: Omit<Generation, "generation" | "createdAt" | "digest">, opts: { keep?: number; protect?: number; now?: Date } = {}): { generation: Generation; created: boolean } {
    return this.locked(() => {
      const digest = configDigest(input.config);
      const newest = this.newest();
      if (newest && newest.digest === digest) return { generation: newest, created: false };
      const generation: Generation = { generation: (newest?.generation ?? 0) + 1, createdAt: (opts.now ?? new Date()).toISOString(), digest, ...input };
      this.write(generation);
      this.prune(opts.keep ?? DEFAULT_GENERATIONS_KEPT, opts.protect);
      return { generation, created: true };
    });
  }

  /** Updates a generation's confirmation state (the only thing that changes after it is written). */
  setConfirmation(n: number, confirmation: Generation["confirmation"]): void {
    this.locked(() => {
      const g = this.get(n);
      if (g) this.write({ ...g, ...(confirmation ? { confirmation } : {}) });
    });
  }

  private write(g: Generation): void {
    writeFileAtomic(join(this.dir, fileName(g.generation)), JSON.stringify(g, null, 2) + "\n", 0o600);
  }

  private prune(keep: number, protect?: number): void {
    const all = this.numbers();
    const excess = all.slice(0, Math.max(0, all.length - Math.max(1, keep)));
    for (const n of excess) if (n !== protect) unlinkSync(join(this.dir, fileName(n)));
  }

  private locked<T>(fn: () => T): T {
    return withLock(join(this.dir, ".lock"), fn, 10_000);
  }
}

export function parseKeep(value: string | boolean | undefined): number {
  const n = Number(value ?? DEFAULT_GENERATIONS_KEPT);
  if (!Number.isInteger(n) || n < 1) throw new RouterdError("InvalidOption", `--keep-generations ${String(value)} is not a positive whole number`, { hint: `for example --keep-generations ${DEFAULT_GENERATIONS_KEPT}` });
  return n;
}
