// Persistent client state under <state-dir>: the DUID (generated once) and the last lease, which also
// carries the last delegated prefix used as a hint after a restart. Writes are atomic.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "@routerd/resource";
import { duidTypeOf } from "./duid.js";
import type { PrefixHint } from "./fsm-types.js";
import type { Lease } from "./lease.js";
import { fromHex, toHex } from "./wire.js";

export const DUID_FILE = "duid";
export const LEASE_FILE = "lease.json";

export interface StoredLease {
  lease?: Lease;
  lastPrefix?: PrefixHint;
  /** Set when the file existed but could not be used. */
  error?: string;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** The persisted DUID, or undefined when there is none (or it is unreadable, which is reported). */
export function loadDuid(stateDir: string): { duid?: Uint8Array; error?: string } {
  const text = readText(join(stateDir, DUID_FILE));
  if (text === undefined) return {};
  const duid = fromHex(text);
  if (!duid || duid.length < 3 || duid.length > 130 || duidTypeOf(duid) === "unknown") return { error: `unusable DUID in ${DUID_FILE}` };
  return { duid };
}

export function saveDuid(stateDir: string, duid: Uint8Array): void {
  writeFileAtomic(join(stateDir, DUID_FILE), `${toHex(duid, ":")}\n`, 0o644);
}

function isPrefixHint(x: unknown): x is PrefixHint {
  const h = x as PrefixHint;
  return typeof h === "object" && h !== null && typeof h.prefix === "string" && Number.isInteger(h.length) && h.length >= 0 && h.length <= 128;
}

function isLease(x: unknown): x is Lease {
  const l = x as Lease;
  return (
    typeof l === "object" &&
    l !== null &&
    typeof l.serverId === "string" &&
    Array.isArray(l.prefixes) &&
    Array.isArray(l.addresses) &&
    l.prefixes.every((p) => isPrefixHint({ prefix: p.prefix, length: p.length }))
  );
}

export function loadLease(stateDir: string): StoredLease {
  const text = readText(join(stateDir, LEASE_FILE));
  if (text === undefined) return {};
  try {
    const doc = JSON.parse(text) as { version?: number; lease?: unknown; lastPrefix?: unknown };
    if (doc.version !== 1) return { error: `unsupported ${LEASE_FILE} version ${String(doc.version)}` };
    const out: StoredLease = {};
    if (isLease(doc.lease)) out.lease = doc.lease;
    if (isPrefixHint(doc.lastPrefix)) out.lastPrefix = doc.lastPrefix;
    return out;
  } catch (err) {
    return { error: `${LEASE_FILE} is not valid JSON: ${(err as Error).message}` };
  }
}

export function saveLease(stateDir: string, lease: Lease | undefined, lastPrefix: PrefixHint | undefined): void {
  const doc = { version: 1, savedAt: new Date().toISOString(), lease: lease ?? null, lastPrefix: lastPrefix ?? null };
  writeFileAtomic(join(stateDir, LEASE_FILE), `${JSON.stringify(doc, null, 2)}\n`, 0o600);
}
