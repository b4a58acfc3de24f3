// Reads and writes <state-dir>/artifacts.json: atomic replace, one writer at a time, a backup before
// every destructive change (the newest BACKUPS_KEPT are kept).
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { FileLock, writeFileAtomic } from "./atomic-file.js";
import { jsonOneItemPerLine } from "./json-document.js";
import { Ledger } from "./ledger.js";

export const LEDGER_FILE = "artifacts.json";
export const BACKUPS_KEPT = 10;

export function ledgerPath(stateDir: string): string {
  return join(stateDir, LEDGER_FILE);
}

/** A missing ledger is an empty one (first run); an unreadable one is an error (LedgerFormatError). */
export function readLedger(stateDir: string): Ledger {
  const path = ledgerPath(stateDir);
  if (!existsSync(path)) return new Ledger();
  return Ledger.parse(readFileSync(path, "utf8"), path);
}

export function writeLedger(stateDir: string, ledger: Ledger): void {
  ledger.generation += 1;
  const { entries, ...head } = ledger.toDocument();
  writeFileAtomic(ledgerPath(stateDir), jsonOneItemPerLine(head, "entries", entries), 0o600);
}

/** Copies the current ledger to backups/artifacts-<timestamp>.json and prunes old backups. */
export function backupLedger(stateDir: string, now = new Date()): string | undefined {
  const path = ledgerPath(stateDir);
  if (!existsSync(path)) return undefined;
  const dir = join(stateDir, "backups");
  mkdirSync(dir, { recursive: true });
  // A zero-padded sequence after the newest one of the same millisecond keeps name order equal to age.
  const stamp = now.toISOString().replace(/[:.]/g, "-");
  const prefix = `artifacts-${stamp}-`;
  const seqs = readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith(".json"))
    .map((f) => Number.parseInt(f.slice(prefix.length), 10))
    .filter((n) => Number.isInteger(n));
  const seq = seqs.length ? Math.max(...seqs) + 1 : 0;
  const target = join(dir, `${prefix}${String(seq).padStart(4, "0")}.json`);
  writeFileAtomic(target, readFileSync(path), 0o600);
  pruneBackups(dir);
  return target;
}

export function listBackups(stateDir: string): string[] {
  const dir = join(stateDir, "backups");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.startsWith("artifacts-") && f.endsWith(".json"))
    .sort()
    .map((f) => join(dir, f));
}

function pruneBackups(dir: string): void {
  const files = readdirSync(dir)
    .filter((f) => f.startsWith("artifacts-") && f.endsWith(".json"))
    .sort();
  for (const f of files.slice(0, Math.max(0, files.length - BACKUPS_KEPT))) unlinkSync(join(dir, f));
}

/** Holds the state-dir lock for the life of one reconcile, so two routerd processes never interleave. */
export class LedgerSession {
  private constructor(
    readonly stateDir: string,
    private readonly lock: FileLock,
    readonly ledger: Ledger,
  ) {}

  static open(stateDir: string, timeoutMs?: number): LedgerSession {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const lock = FileLock.acquire(join(stateDir, "routerd.lock"), timeoutMs);
    try {
      return new LedgerSession(stateDir, lock, readLedger(stateDir));
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  /** Persists the ledger now (write-ahead `pending` entries go through here before the host changes). */
  save(options: { destructive?: boolean } = {}): void {
    if (options.destructive) backupLedger(this.stateDir);
    writeLedger(this.stateDir, this.ledger);
  }

  close(): void {
    this.lock.release();
  }
}
