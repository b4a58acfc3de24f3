// Artifacts are the host objects routerd touches; intents are what a resource wants of them.
// Kind names follow the seed documents.

export const ARTIFACT_KINDS = [
  "linux.link",
  "linux.ipv4.address",
  "linux.ipv6.address",
  "linux.ipv4.route",
  "linux.ipv6.route",
  "linux.ipv4.fwmarkRule",
  "linux.ipv4.routeTable",
  "linux.route.protocol",
  "linux.ipip6.tunnel",
  "linux.fdb",
  "linux.fou",
  "wireguard.device",
  "wireguard.peer",
  "nft.table",
  "nft.set",
  "linux.sysctl",
  "linux.hostname",
  "package",
  "file",
  "systemd.service",
  "freebsd.rcScript",
  "systemd.dropin",
  "linux.kernelModule",
  "routerd.daemon",
  "routerd.lease",
] as const;

export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];

export function isArtifactKind(value: string): value is ArtifactKind {
  return (ARTIFACT_KINDS as readonly string[]).includes(value);
}

/** `apiVersion/kind/name`, e.g. `net.routerd.net/v1alpha1/Interface/wan`. Never contains a generation. */
export type OwnerKey = string;

export function ownerKey(apiVersion: string, kind: string, name: string): OwnerKey {
  return `${apiVersion}/${kind}/${name}`;
}

export interface OwnerParts {
  apiVersion: string;
  kind: string;
  name: string;
}

export function parseOwnerKey(owner: OwnerKey): OwnerParts {
  // apiVersion itself contains one slash (group/version).
  const parts = owner.split("/");
  if (parts.length < 4) throw new Error(`malformed owner key ${JSON.stringify(owner)}`);
  const [group, version, kind, ...rest] = parts as [string, string, string, ...string[]];
  return { apiVersion: `${group}/${version}`, kind, name: rest.join("/") };
}

export type IntentAction = "ensure" | "observe" | "delete";

export type Attributes = Record<string, unknown>;

export interface ArtifactIntent {
  kind: ArtifactKind;
  name: string;
  owner: OwnerKey;
  action: IntentAction;
  /** Which executor family brings the host to this intent (e.g. `ip-batch`, `nft`, `sysctl`). */
  applyWith: string;
  attributes: Attributes;
}

/** Identity of an artifact on the host: `kind/name`. */
export function artifactId(a: { kind: string; name: string }): string {
  return `${a.kind}/${a.name}`;
}

/** One desired artifact after intents of several owners were merged (a shared nft table, a sysctl). */
export interface DesiredArtifact {
  kind: ArtifactKind;
  name: string;
  /** Sorted; the first is the ledger's primary owner. */
  owners: OwnerKey[];
  action: "ensure" | "observe";
  applyWith: string;
  attributes: Attributes;
}

export class IntentConflictError extends Error {
  constructor(
    readonly artifact: string,
    readonly owners: OwnerKey[],
    readonly detail: string,
  ) {
    super(`artifact ${artifact} is wanted differently by ${owners.join(" and ")}: ${detail}`);
    this.name = "IntentConflictError";
  }
}

/**
 * Merges intents by identity. Ensure wins over observe; two ensures must agree on attributes unless
 * `mergeAttributes` knows how to combine them (e.g. an nft table shared by NAT and PortForward).
 */
export function mergeIntents(
  intents: readonly ArtifactIntent[],
  mergeAttributes: (kind: ArtifactKind, a: Attributes, b: Attributes) => Attributes | undefined = defaultMerge,
): DesiredArtifact[] {
  const byId = new Map<string, DesiredArtifact>();
  // Owner sets per shared artifact: a table shared by 1,000 port forwards must not scan its owner list 1,000 times.
  const ownerSets = new Map<DesiredArtifact, Set<OwnerKey>>();
  for (const intent of intents) {
    if (intent.action === "delete") continue;
    const id = artifactId(intent);
    const prev = byId.get(id);
    if (!prev) {
      byId.set(id, {
        kind: intent.kind,
        name: intent.name,
        owners: [intent.owner],
        action: intent.action,
        applyWith: intent.applyWith,
        attributes: intent.attributes,
      });
      continue;
    }
    let owners = ownerSets.get(prev);
    if (!owners) ownerSets.set(prev, (owners = new Set(prev.owners)));
    if (!owners.has(intent.owner)) {
      owners.add(intent.owner);
      prev.owners.push(intent.owner);
    }
    if (intent.action === "observe") continue;
    if (prev.action === "observe") {
      prev.action = "ensure";
      prev.applyWith = intent.applyWith;
      prev.attributes = intent.attributes;
      continue;
    }
    const merged = mergeAttributes(intent.kind, prev.attributes, intent.attributes);
    if (merged === undefined) {
      throw new IntentConflictError(id, prev.owners, `${stableJson(prev.attributes)} vs ${stableJson(intent.attributes)}`);
    }
    prev.attributes = merged;
  }
  for (const d of byId.values()) d.owners.sort();
  return sortedBy([...byId.entries()], ([id]) => id).map(([, d]) => d);
}

/**
 * Sorts by a string key in code-point order, computing each key once. Much faster than
 * `localeCompare` (ICU) for the 10,000-entry lists a large config has, and independent of the locale.
 */
export function sortedBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  const keyed = items.map((item) => ({ key: key(item), item }));
  keyed.sort((a, b) => compareText(a.key, b.key));
  return keyed.map((k) => k.item);
}

/** Code-point order (see sortedBy). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function defaultMerge(_kind: ArtifactKind, a: Attributes, b: Attributes): Attributes | undefined {
  return stableJson(a) === stableJson(b) ? a : undefined;
}

/**
 * Equality of two attribute bags as JSON, ignoring key order at the top level. Much cheaper than
 * comparing stableJson strings for the flat bags most artifacts have.
 */
export function sameAttributes(a: Attributes, b: Attributes): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    const x = a[k];
    const y = b[k];
    if (x === y) continue;
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
    if (stableJson(x) !== stableJson(y)) return false;
  }
  return true;
}

/** JSON with sorted keys, for comparing attribute bags. */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}
