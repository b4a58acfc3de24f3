// state.json in <stateDir>/<daemon>/<instance>/: written atomically, read on start so a restart resumes.
import { existsSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "@routerd/resource";
import type { PersistedStatus } from "./status-model.js";
import type { Condition, JsonValue, ResourceState } from "./types.js";

export const STATE_FILE = "state.json";
export const STATE_VERSION = 1;

export interface StateDocument {
  version: typeof STATE_VERSION;
  daemon: string;
  instance: string;
  savedAt: string;
  /** Backs up the event log's last seq should the log be lost. */
  lastEventSeq: number;
  status: PersistedStatus;
  /** The daemon's own state (a lease, a session); null when it saved none. */
  data: JsonValue;
}

export class StateFormatError extends Error {
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = "StateFormatError";
  }
}

type Check = (v: unknown) => boolean;
const isString: Check = (v) => typeof v === "string";
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const hasFields = (fields: Record<string, Check>): Check => (v) =>
  isObject(v) && Object.entries(fields).every(([k, check]) => check(v[k]));
const arrayOf = (check: Check): Check => (v) => Array.isArray(v) && v.every(check);

const CONDITION_STATUSES = new Set(["True", "False", "Unknown"]);
const isCondition = hasFields({
  type: isString,
  status: (v) => typeof v === "string" && CONDITION_STATUSES.has(v),
  reason: isString,
  message: isString,
  lastTransitionTime: isString,
});
const isResource = hasFields({
  name: isString,
  kind: isString,
  phase: isString,
  message: isString,
  conditions: arrayOf(isCondition),
  updatedAt: isString,
  details: (v) => v === undefined || isObject(v),
});
const isDocument = hasFields({
  version: (v) => v === STATE_VERSION,
  daemon: isString,
  instance: isString,
  savedAt: isString,
  lastEventSeq: (v) => typeof v === "number" && Number.isSafeInteger(v) && v >= 0,
  status: hasFields({ conditions: arrayOf(isCondition), resources: arrayOf(isResource) }),
  data: (v) => v !== undefined,
});

export function parseStateDocument(path: string, text: string): StateDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new StateFormatError(path, `not JSON (${(err as Error).message})`);
  }
  if (!isDocument(value)) throw new StateFormatError(path, `not a version ${STATE_VERSION} daemon state document`);
  const doc = value as unknown as StateDocument;
  return {
    ...doc,
    status: {
      conditions: doc.status.conditions as Condition[],
      resources: doc.status.resources as ResourceState[],
    },
  };
}

export interface LoadedState {
  document: StateDocument | undefined;
  /** Where an unreadable state file was moved, kept for inspection. */
  quarantined?: string;
  error?: StateFormatError;
}

/** Loads state.json; an unparseable file is moved aside (never deleted) and the daemon starts fresh. */
export function loadState(dir: string, now: Date = new Date()): LoadedState {
  const path = join(dir, STATE_FILE);
  if (!existsSync(path)) return { document: undefined };
  try {
    return { document: parseStateDocument(path, readFileSync(path, "utf8")) };
  } catch (err) {
    if (!(err instanceof StateFormatError)) throw err;
    const quarantined = `${path}.corrupt-${now.toISOString().replace(/[:.]/g, "-")}`;
    renameSync(path, quarantined);
    return { document: undefined, quarantined, error: err };
  }
}

export function saveState(dir: string, document: StateDocument): void {
  writeFileAtomic(join(dir, STATE_FILE), JSON.stringify(document, null, 2) + "\n", 0o600);
}

export interface StateKeeperOptions {
  daemon: string;
  instance: string;
  /** The parts of state.json the kit owns, read at each write. */
  snapshot: () => { lastEventSeq: number; status: PersistedStatus };
  /** Delay that coalesces status-driven writes. */
  delayMs: number;
  now: () => Date;
  onError: (err: unknown) => void;
}

/** Holds the daemon's saved data and writes state.json: at once on save(), coalesced on schedule(). */
export class StateKeeper {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly dir: string,
    public data: JsonValue,
    private readonly options: StateKeeperOptions,
  ) {}

  /** Replaces the daemon's data and writes before returning; errors reach the caller. */
  save(data: JsonValue): void {
    this.data = data;
    this.flush();
  }

  schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      try {
        this.flush();
      } catch (err) {
        this.options.onError(err);
      }
    }, this.options.delayMs);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const { lastEventSeq, status } = this.options.snapshot();
    saveState(this.dir, {
      version: STATE_VERSION,
      daemon: this.options.daemon,
      instance: this.options.instance,
      savedAt: this.options.now().toISOString(),
      lastEventSeq,
      status,
      data: this.data,
    });
  }
}
