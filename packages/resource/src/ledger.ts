// The ownership ledger: the durable record of what routerd created or adopted. Pure in-memory model here;
// ledger-store.ts reads and writes it.
import { ARTIFACT_KINDS, artifactId, isArtifactKind, sortedBy, type ArtifactKind, type Attributes, type OwnerKey } from "./artifact.js";

export type Ownership = "created" | "adopted";
export type LedgerState = "pending" | "present";

export interface LedgerEntry {
  kind: ArtifactKind;
  name: string;
  /** Primary owner (first of `owners`). */
  owner: OwnerKey;
  /** Every resource that wants this artifact; a shared nft table has several. */
  owners: OwnerKey[];
  ownership: Ownership;
  /** `pending` is written before the host is changed; `present` once the host confirmed it. */
  state: LedgerState;
  attributes: Attributes;
  generation: number;
  recordedAt: string;
}

export const LEDGER_API_VERSION = "routerd.net/ledger/v1";

export interface LedgerDocument {
  apiVersion: typeof LEDGER_API_VERSION;
  generation: number;
  entries: LedgerEntry[];
}

export class LedgerFormatError extends Error {
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(
      `ledger ${path} is unreadable: ${detail}. Cleanup is disabled until it is repaired ` +
        `(restore the newest file from backups/ next to it).`,
    );
    this.name = "LedgerFormatError";
  }
}

// A run records thousands of entries with the same `now`: format it once.
let lastTime: { date: Date; iso: string } | undefined;
function isoTime(date: Date): string {
  if (lastTime?.date !== date) lastTime = { date, iso: date.toISOString() };
  return lastTime.iso;
}

export class Ledger {
  private readonly entries = new Map<string, LedgerEntry>();
  generation: number;
  /** Counts record() and forget() calls that changed something, so callers can skip no-op writes. */
  mutations = 0;

  constructor(doc?: LedgerDocument) {
    this.generation = doc?.generation ?? 0;
    for (const e of doc?.entries ?? []) this.entries.set(artifactId(e), e);
  }

  get size(): number {
    return this.entries.size;
  }

  get(kind: string, name: string): LedgerEntry | undefined {
    return this.entries.get(`${kind}/${name}`);
  }

  list(): LedgerEntry[] {
    return sortedBy([...this.entries.entries()], ([id]) => id).map(([, e]) => e);
  }

  /** Every entry, in no particular order (cheaper than list() when order does not matter). */
  values(): IterableIterator<LedgerEntry> {
    return this.entries.values();
  }

  ownedBy(owner: OwnerKey): LedgerEntry[] {
    return this.list().filter((e) => e.owners.includes(owner));
  }

  /** Records (or refreshes) an entry. An adopted entry stays adopted when routerd later updates it. */
  record(input: {
    kind: ArtifactKind;
    name: string;
    owners: OwnerKey[];
    ownership: Ownership;
    state: LedgerState;
    attributes: Attributes;
    now?: Date;
  }): LedgerEntry {
    const prev = this.get(input.kind, input.name);
    const owners = input.owners.length === 1 ? [input.owners[0]!] : [...new Set(input.owners)].sort();
    if (owners.length === 0) throw new Error(`ledger entry ${input.kind}/${input.name} needs an owner`);
    const entry: LedgerEntry = {
      kind: input.kind,
      name: input.name,
      owner: owners[0]!,
      owners,
      ownership: prev?.ownership === "adopted" ? "adopted" : input.ownership,
      state: input.state,
      attributes: input.attributes,
      generation: this.generation + 1,
      recordedAt: isoTime(input.now ?? new Date()),
    };
    this.entries.set(artifactId(entry), entry);
    this.mutations++;
    return entry;
  }

  forget(kind: string, name: string): boolean {
    const gone = this.entries.delete(`${kind}/${name}`);
    if (gone) this.mutations++;
    return gone;
  }

  toDocument(): LedgerDocument {
    return { apiVersion: LEDGER_API_VERSION, generation: this.generation, entries: this.list() };
  }

  clone(): Ledger {
    return new Ledger(structuredClone(this.toDocument()));
  }

  /** Parses a ledger file strictly: anything unexpected is an error, never an empty ledger. */
  static parse(text: string, path: string): Ledger {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new LedgerFormatError(path, `invalid JSON (${(err as Error).message})`);
    }
    const doc = raw as Partial<LedgerDocument>;
    if (!doc || typeof doc !== "object" || doc.apiVersion !== LEDGER_API_VERSION) {
      throw new LedgerFormatError(path, `apiVersion must be ${LEDGER_API_VERSION}`);
    }
    if (!Number.isInteger(doc.generation) || (doc.generation as number) < 0) {
      throw new LedgerFormatError(path, "generation must be a non-negative integer");
    }
    if (!Array.isArray(doc.entries)) throw new LedgerFormatError(path, "entries must be a list");
    doc.entries.forEach((e, i) => checkEntry(e, i, path));
    return new Ledger(doc as LedgerDocument);
  }
}

function checkEntry(e: unknown, i: number, path: string): void {
  const where = `entries[${i}]`;
  if (!e || typeof e !== "object") throw new LedgerFormatError(path, `${where} is not an object`);
  const x = e as Record<string, unknown>;
  if (typeof x.kind !== "string" || !isArtifactKind(x.kind)) {
    throw new LedgerFormatError(path, `${where}.kind ${JSON.stringify(x.kind)} is not one of ${ARTIFACT_KINDS.join(", ")}`);
  }
  for (const field of ["name", "owner", "recordedAt"]) {
    if (typeof x[field] !== "string" || (x[field] as string).length === 0) {
      throw new LedgerFormatError(path, `${where}.${field} must be a non-empty string`);
    }
  }
  if (!Array.isArray(x.owners) || x.owners.length === 0 || x.owners.some((o) => typeof o !== "string")) {
    throw new LedgerFormatError(path, `${where}.owners must be a non-empty list of owner keys`);
  }
  if (x.ownership !== "created" && x.ownership !== "adopted") {
    throw new LedgerFormatError(path, `${where}.ownership must be created or adopted`);
  }
  if (x.state !== "pending" && x.state !== "present") {
    throw new LedgerFormatError(path, `${where}.state must be pending or present`);
  }
  if (!x.attributes || typeof x.attributes !== "object" || Array.isArray(x.attributes)) {
    throw new LedgerFormatError(path, `${where}.attributes must be an object`);
  }
  if (!Number.isInteger(x.generation)) throw new LedgerFormatError(path, `${where}.generation must be an integer`);
}
