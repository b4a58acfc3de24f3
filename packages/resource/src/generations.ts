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

/** `000012-<sha256 hex>.json`: the digest in the name lets a no-op apply compare without reading the file. */
const FILE = /^(\d{6,})-([0-9a-f]{64})\.json$/;
const fileName = (n: number, digest: string) => `${String(n).padStart(6, "0")}-${digest.replace(/^sha256:/, "")}.json`;

/** A generation's number and digest, known from its file name. */
export interface GenerationRef {
  generation: number;
  digest: string;
}

export class GenerationStore {
  readonly dir: string;
  constructor(readonly stateDir: string) {
    this.dir = join(stateDir, GENERATIONS_DIR);
  }

  /** Every generation's number and digest, oldest first (one readdir; no file is read). */
  refs(): GenerationRef[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .flatMap((f) => {
        const m = FILE.exec(f);
        return m ? [{ generation: Number(m[1]), digest: `sha256:${m[2]}` }] : [];
      })
      .sort((a, b) => a.generation - b.generation);
  }

  numbers(): number[] {
    return this.refs().map((r) => r.generation);
  }

  get(n: number): Generation | undefined {
    const ref = this.refs().find((r) => r.generation === n);
    return ref ? this.read(ref) : undefined;
  }

  private read(ref: GenerationRef): Generation {
    const path = join(this.dir, fileName(ref.generation, ref.digest));
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

  newestRef(): GenerationRef | undefined {
    return this.refs().at(-1);
  }

  newest(): Generation | undefined {
    const ref = this.newestRef();
    return ref ? this.read(ref) : undefined;
  }

  list(): GenerationSummary[] {
    return this.refs().map((ref) => {
      const { config: _c, ...summary } = this.read(ref);
      return summary;
    });
  }

  /**
   * Records `config` as the next generation unless it is the newest one already (same digest): re-applying
   * an unchanged config adds nothing to roll back to (and costs one readdir). Prunes to `keep`, never
   * removing the newest or `protect`.
   */
  record(input: Omit<Generation, "generation" | "createdAt" | "digest">, opts: { keep?: number; protect?: number; now?: Date } = {}): GenerationRef & { created: boolean } {
    const digest = configDigest(input.config);
    const same = (ref: GenerationRef | undefined) => ref !== undefined && ref.digest === digest;
    const seen = this.newestRef();
    if (same(seen)) return { ...seen!, created: false };
    return this.locked(() => {
      const newest = this.newestRef();
      if (same(newest)) return { ...newest!, created: false };
      const generation: Generation = { generation: (newest?.generation ?? 0) + 1, createdAt: (opts.now ?? new Date()).toISOString(), digest, ...input };
      this.write(generation);
      this.prune(opts.keep ?? DEFAULT_GENERATIONS_KEPT, opts.protect);
      return { generation: generation.generation, digest, created: true };
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
    writeFileAtomic(join(this.dir, fileName(g.generation, g.digest)), JSON.stringify(g, null, 2) + "\n", 0o600);
  }

  private prune(keep: number, protect?: number): void {
    const all = this.refs();
    const excess = all.slice(0, Math.max(0, all.length - Math.max(1, keep)));
    for (const r of excess) if (r.generation !== protect) unlinkSync(join(this.dir, fileName(r.generation, r.digest)));
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
