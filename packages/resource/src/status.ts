// Object status: per resource, what routerd last did for it. Kept at <state-dir>/status.json.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sortedBy, type ArtifactKind, type OwnerKey } from "./artifact.js";
import { writeFileAtomic } from "./atomic-file.js";
import { jsonOneItemPerLine } from "./json-document.js";
import type { LifecycleContract, ResourceClass } from "./lifecycle.js";

export type Phase = "Ready" | "Pending" | "Failed" | "Unknown";

export interface ObjectStatus {
  owner: OwnerKey;
  lifecycleClass: ResourceClass;
  contract: LifecycleContract["type"];
  phase: Phase;
  reason?: string;
  message?: string;
  /** Artifacts the resource's own teardown is responsible for. */
  artifacts: { kind: ArtifactKind; name: string }[];
  /** Adopted or externally managed: never torn down by resource lifecycle GC. */
  external?: boolean;
  updatedAt: string;
}

export const STATUS_FILE = "status.json";

export class StatusFormatError extends Error {
  constructor(path: string, detail: string) {
    super(`status file ${path} is unreadable: ${detail}`);
    this.name = "StatusFormatError";
  }
}

export function readStatuses(stateDir: string): Map<OwnerKey, ObjectStatus> {
  const path = join(stateDir, STATUS_FILE);
  if (!existsSync(path)) return new Map();
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new StatusFormatError(path, (err as Error).message);
  }
  const list = (doc as { statuses?: unknown }).statuses;
  if (!Array.isArray(list)) throw new StatusFormatError(path, "statuses must be a list");
  return new Map((list as ObjectStatus[]).map((s) => [s.owner, s]));
}

export function writeStatuses(stateDir: string, statuses: Map<OwnerKey, ObjectStatus>): void {
  const list = sortedBy([...statuses.values()], (s) => s.owner);
  writeFileAtomic(join(stateDir, STATUS_FILE), jsonOneItemPerLine({ version: 1 }, "statuses", list), 0o600);
}
