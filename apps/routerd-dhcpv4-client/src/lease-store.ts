// The lease survives restarts in <state-dir>/lease.json (atomic replace), tied to the interface,
// hardware address and client identifier it was obtained with.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseStoredLease, type DhcpLease } from "./lease.js";

// Loaded on first write, so a cold start is not slowed by the whole ownership library.
let atomicWrite: Promise<(path: string, data: string, mode: number) => void> | undefined;
function writeFileAtomic(): Promise<(path: string, data: string, mode: number) => void> {
  atomicWrite ??= import("@routerd/resource").then((m) => m.writeFileAtomic);
  return atomicWrite;
}

export const LEASE_FILE = "lease.json";
const FORMAT_VERSION = 1;

export interface LeaseIdentity {
  interface: string;
  /** Lower-case hex, colon separated. */
  mac: string;
  clientId: string;
}

export type LoadResult = { lease: DhcpLease } | { lease: null; reason: string };

export class LeaseStore {
  readonly path: string;

  constructor(
    stateDir: string,
    private readonly identity: LeaseIdentity,
  ) {
    this.path = join(stateDir, LEASE_FILE);
  }

  load(): LoadResult {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch {
      return { lease: null, reason: "no stored lease" };
    }
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return { lease: null, reason: "stored lease is not JSON" };
    }
    if (doc.version !== FORMAT_VERSION) return { lease: null, reason: `unknown lease file version ${String(doc.version)}` };
    const id = this.identity;
    if (doc.interface !== id.interface || doc.mac !== id.mac || doc.clientId !== id.clientId) {
      return { lease: null, reason: "stored lease belongs to another interface or identity" };
    }
    const lease = parseStoredLease(doc.lease);
    return lease ? { lease } : { lease: null, reason: "stored lease is malformed" };
  }

  /** Atomic replace (temp file, fsync, rename, fsync dir). */
  async save(lease: DhcpLease): Promise<void> {
    const doc = { version: FORMAT_VERSION, ...this.identity, savedAt: new Date().toISOString(), lease };
    const write = await writeFileAtomic();
    write(this.path, JSON.stringify(doc, null, 2) + "\n", 0o600);
  }

  clear(): void {
    rmSync(this.path, { force: true });
  }
}
