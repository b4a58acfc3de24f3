// Crash-safe file primitives: atomic replace and a cross-process exclusive lock.
import { closeSync, fsyncSync, openSync, renameSync, writeSync, readFileSync, unlinkSync, mkdirSync, linkSync } from "node:fs";
import { dirname, basename, join } from "node:path";
import { randomBytes } from "node:crypto";

/** Writes `data` to `path` so a crash leaves either the old or the new file: temp, fsync, rename, fsync dir. */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const fd = openSync(tmp, "wx", mode);
  try {
    const buf = typeof data === "string" ? Buffer.from(data) : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw err;
  }
  fsyncDir(dir);
}

export function fsyncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export class LockBusyError extends Error {
  constructor(
    readonly path: string,
    readonly holderPid: number | undefined,
  ) {
    super(`${path} is locked by pid ${holderPid ?? "unknown"}; another routerd is writing state (retry when it finishes)`);
    this.name = "LockBusyError";
  }
}

/** The process exists (EPERM: it does, under another user). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** This boot's id (Linux); a lock written before a reboot names a pid that may now be someone else. */
const BOOT_ID = (() => {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
})();

interface Holder {
  pid: number;
  bootId?: string;
}

/** Lock file content: the pid on the first line, the boot id on the second (when known). */
function readHolder(path: string): Holder | undefined {
  try {
    const [pidLine = "", bootId] = readFileSync(path, "utf8").split("\n");
    const pid = Number.parseInt(pidLine.trim(), 10);
    return Number.isNaN(pid) ? undefined : { pid, ...(bootId?.trim() ? { bootId: bootId.trim() } : {}) };
  } catch {
    return undefined;
  }
}

function holderAlive(h: Holder): boolean {
  if (h.bootId !== undefined && BOOT_ID !== undefined && h.bootId !== BOOT_ID) return false;
  return pidAlive(h.pid);
}

const sleepArray = new Int32Array(new SharedArrayBuffer(4));
function sleepMs(ms: number): void {
  Atomics.wait(sleepArray, 0, 0, ms);
}

/**
 * Exclusive lock file holding the owner's pid. A lock whose holder died (kill -9) is taken over;
 * a live holder makes this wait up to `timeoutMs`, then throw LockBusyError.
 */
export class FileLock {
  private released = false;
  private constructor(readonly path: string) {}

  static acquire(path: string, timeoutMs = 5_000): FileLock {
    mkdirSync(dirname(path), { recursive: true });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (FileLock.tryCreate(path)) return new FileLock(path);
      const holder = readHolder(path);
      if (holder !== undefined && !holderAlive(holder)) {
        FileLock.takeOverStale(path, holder.pid);
        continue;
      }
      if (holder?.pid === process.pid) throw new LockBusyError(path, holder.pid);
      if (Date.now() >= deadline) throw new LockBusyError(path, holder?.pid);
      sleepMs(20);
    }
  }

  /**
   * Creates the lock with its content already in place: a complete temp file is hard-linked to the lock
   * path (link fails if the lock exists). A crash can never leave an empty lock that nobody can take over.
   */
  private static tryCreate(path: string): boolean {
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    const fd = openSync(tmp, "wx", 0o600);
    try {
      writeSync(fd, `${process.pid}\n${BOOT_ID ?? ""}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(tmp, path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      return false;
    } finally {
      unlinkSync(tmp);
    }
  }

  /** Moves a dead holder's lock aside; if a live lock was moved by a race, it is put back. */
  private static takeOverStale(path: string, deadPid: number): void {
    const aside = `${path}.stale.${process.pid}.${randomBytes(3).toString("hex")}`;
    try {
      renameSync(path, aside);
    } catch {
      return; // someone else moved it first
    }
    const moved = readHolder(aside);
    if (moved !== undefined && moved.pid !== deadPid && holderAlive(moved)) {
      try {
        linkSync(aside, path);
      } catch {
        /* a new lock exists already; the live holder keeps running with its own */
      }
    }
    try {
      unlinkSync(aside);
    } catch {
      /* gone */
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    if (readHolder(this.path)?.pid === process.pid) unlinkSync(this.path);
  }
}

export function withLock<T>(path: string, fn: () => T, timeoutMs?: number): T {
  const lock = FileLock.acquire(path, timeoutMs);
  try {
    return fn();
  } finally {
    lock.release();
  }
}
