// RouterdCluster's file lease: {holder, expiresAt, updatedAt} at spec.leasePath, changed only under an
// exclusive lock. The leader refreshes every ttl/3 and the lease stays valid for 2·ttl/3, so a standby
// polling every ttl/6 takes over within ttl of the leader's death. A failed refresh fences at once.
import { existsSync, readFileSync, unlinkSync } from "node:fs";
import { withLock, writeFileAtomic } from "@routerd/resource";

export interface LeaseRecord {
  holder: string;
  expiresAt: string;
  updatedAt: string;
}

export type LeaseState = { role: "leader"; validUntil: number } | { role: "standby"; holder?: string } | { role: "fenced"; reason: string };

export interface LeaseTiming {
  ttlMs: number;
}

export const refreshEvery = (t: LeaseTiming) => Math.floor(t.ttlMs / 3);
export const validFor = (t: LeaseTiming) => Math.floor((2 * t.ttlMs) / 3);
export const pollEvery = (t: LeaseTiming) => Math.floor(t.ttlMs / 6);

function read(path: string): LeaseRecord | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const r = JSON.parse(readFileSync(path, "utf8")) as LeaseRecord;
    return typeof r.holder === "string" && typeof r.expiresAt === "string" ? r : undefined;
  } catch {
    return undefined; // a torn or foreign file is treated as no lease; the lock protects writers
  }
}

export class FileLease {
  private state: LeaseState = { role: "standby" };

  constructor(
    readonly path: string,
    readonly node: string,
    readonly timing: LeaseTiming,
    private readonly clock: () => number = Date.now,
  ) {}

  get current(): LeaseState {
    // Leadership lapses by itself when refreshes stop succeeding.
    if (this.state.role === "leader" && this.clock() >= this.state.validUntil) {
      this.state = { role: "fenced", reason: "lease expired before it could be refreshed" };
    }
    return this.state;
  }

  isLeader(): boolean {
    return this.current.role === "leader";
  }

  /** Acquire or refresh. Any error while leader fences immediately. */
  tick(): LeaseState {
    const wasLeader = this.state.role === "leader";
    try {
      this.state = withLock(`${this.path}.lock`, () => {
        const now = this.clock();
        const lease = read(this.path);
        if (lease && lease.holder !== this.node && Date.parse(lease.expiresAt) > now) {
          return wasLeader ? { role: "fenced", reason: `lease taken by ${lease.holder}` } : { role: "standby", holder: lease.holder };
        }
        const validUntil = now + validFor(this.timing);
        const record: LeaseRecord = { holder: this.node, expiresAt: new Date(validUntil).toISOString(), updatedAt: new Date(now).toISOString() };
        writeFileAtomic(this.path, JSON.stringify(record) + "\n", 0o644);
        return { role: "leader", validUntil } as LeaseState;
      }, Math.max(100, refreshEvery(this.timing) / 2));
    } catch (err) {
      this.state = wasLeader ? { role: "fenced", reason: `refresh failed: ${(err as Error).message}` } : { role: "standby" };
    }
    return this.state;
  }

  /** On graceful stop: give the lease up so a standby need not wait for it to expire. */
  release(): void {
    if (this.state.role !== "leader") return;
    try {
      withLock(`${this.path}.lock`, () => {
        if (read(this.path)?.holder === this.node) unlinkSync(this.path);
      });
    } finally {
      this.state = { role: "standby" };
    }
  }

  static inspect(path: string): LeaseRecord | undefined {
    return read(path);
  }
}
