// The GC planner: a pure function of (effective desired set, ledger, object status, host inventory).
// It decides what routerd may remove, forget or tear down, and why. It never touches the host.
import { artifactId, compareText, sortedBy, type ArtifactKind, type Attributes, type DesiredArtifact, type OwnerKey } from "./artifact.js";
import { observe, type Inventory, type ObservedArtifact } from "./inventory.js";
import type { LedgerEntry } from "./ledger.js";
import type { LifecycleContract } from "./lifecycle.js";
import type { ObjectStatus } from "./status.js";
import type { TeardownRegistry } from "./teardown-registry.js";

export type GcAction =
  | { type: "backupState"; reason: string }
  | { type: "removeArtifact"; kind: ArtifactKind; name: string; owner: OwnerKey; operation: string; attributes: Attributes; reason: string }
  | { type: "teardownResource"; owner: OwnerKey; artifacts: { kind: ArtifactKind; name: string; attributes: Attributes }[]; reason: string }
  | { type: "forgetLedger"; kind: ArtifactKind; name: string; owner: OwnerKey; reason: string }
  | { type: "deleteStatus"; owner: OwnerKey; reason: string }
  | { type: "recordEvent"; topic: "gc"; reason: string; counts: Record<string, number> };

export interface GcSkip {
  kind: ArtifactKind;
  name: string;
  owner?: OwnerKey;
  reason: string;
}

export interface Orphan {
  kind: ArtifactKind;
  name: string;
  owner: OwnerKey;
  ownership: LedgerEntry["ownership"];
  observed: Attributes;
}

export interface GcInput {
  desired: readonly DesiredArtifact[];
  /** Resources in the effective view (their `when` holds, or they have none). */
  activeOwners: ReadonlySet<OwnerKey>;
  /** Every resource in the config, active or not (`when: false` keeps its status). */
  configuredOwners: ReadonlySet<OwnerKey>;
  /** Resources whose `when` is undecidable, or that wait for a status-sourced value: what they own is kept as it is. */
  protectedOwners: ReadonlySet<OwnerKey>;
  ledger: readonly LedgerEntry[];
  statuses: ReadonlyMap<OwnerKey, ObjectStatus>;
  inventory: Inventory;
  contractOf: (owner: OwnerKey) => LifecycleContract | undefined;
  teardown: TeardownRegistry;
  allowEmpty: boolean;
}

export interface GcPlan {
  actions: GcAction[];
  orphans: Orphan[];
  /** In routerd's namespace (routerd_* table, fwmark 0x100-0x1ff, ...) but not in the ledger: never touched. */
  lookAlikes: ObservedArtifact[];
  skipped: GcSkip[];
  /** Set when the planner refused to clean up at all (empty desired set without allowEmpty). */
  blocked?: string;
}

/** Ledger-owned artifacts on the host that no current resource wants. */
export function findOrphans(desired: readonly DesiredArtifact[], ledger: readonly LedgerEntry[], inventory: Inventory): Orphan[] {
  const wanted = new Set(desired.map(artifactId));
  const out: Orphan[] = [];
  for (const e of ledger) {
    if (wanted.has(artifactId(e))) continue;
    const o = observe(inventory, e.kind, e.name);
    if (o.state === "present") {
      out.push({ kind: e.kind, name: e.name, owner: e.owner, ownership: e.ownership, observed: o.artifact.attributes });
    }
  }
  return out;
}

export function findLookAlikes(
  desired: readonly DesiredArtifact[],
  ledger: readonly LedgerEntry[],
  inventory: Inventory,
  teardown: TeardownRegistry,
): ObservedArtifact[] {
  const known = new Set([...desired.map(artifactId), ...ledger.map(artifactId)]);
  const out: ObservedArtifact[] = [];
  for (const spec of teardown.list()) {
    const inv = inventory.get(spec.kind);
    if (!spec.inRouterdNamespace || inv?.status !== "known") continue;
    for (const item of inv.items.values()) {
      if (spec.inRouterdNamespace(item.name) && !known.has(artifactId(item))) out.push(item);
    }
  }
  return sortedBy(out, artifactId);
}

export function planGc(input: GcInput): GcPlan {
  const wanted = new Set(input.desired.map(artifactId));
  const lookAlikes = findLookAlikes(input.desired, input.ledger, input.inventory, input.teardown);
  const plan: GcPlan = { actions: [], orphans: [], lookAlikes, skipped: [] };

  if (input.activeOwners.size === 0 && !input.allowEmpty && (input.ledger.length > 0 || input.statuses.size > 0)) {
    plan.blocked =
      "the desired set is empty: refusing to clean up everything routerd owns (pass --allow-empty if that is what you want)";
    return plan;
  }

  const removals: (GcAction & { type: "removeArtifact" })[] = [];
  const forgets: (GcAction & { type: "forgetLedger" })[] = [];
  const teardowns = new Map<OwnerKey, (GcAction & { type: "teardownResource" })>();
  const addTeardown = (owner: OwnerKey, reason: string) => {
    let t = teardowns.get(owner);
    if (!t) teardowns.set(owner, (t = { type: "teardownResource", owner, artifacts: [], reason }));
    return t;
  };

  for (const e of input.ledger) {
    if (wanted.has(artifactId(e))) continue;
    const skip = (reason: string) => plan.skipped.push({ kind: e.kind, name: e.name, owner: e.owner, reason });
    const forget = (reason: string) => forgets.push({ type: "forgetLedger", kind: e.kind, name: e.name, owner: e.owner, reason });
    if (e.owners.some((o) => input.protectedOwners.has(o))) {
      skip("its owner is undecided (`when`) or pending (a status-sourced value): kept as it is");
      continue;
    }
    const o = observe(input.inventory, e.kind, e.name);
    if (o.state === "unknown") {
      skip(`${e.kind} inventory is unknown (${o.reason}): no cleanup for this kind`);
      continue;
    }
    if (o.state === "absent") {
      forget("no longer on the host");
      continue;
    }
    plan.orphans.push({ kind: e.kind, name: e.name, owner: e.owner, ownership: e.ownership, observed: o.artifact.attributes });
    if (e.ownership === "adopted") {
      forget("adopted, not created: ownership released, left on the host");
      continue;
    }
    const spec = input.teardown.get(e.kind);
    const status = input.statuses.get(e.owner);
    switch (spec.policy) {
      case "never":
        forget(`left on the host: ${spec.guard(e) ?? spec.why}`);
        break;
      case "withParent":
        forget(spec.why);
        break;
      case "ownerTeardown": {
        const contract = input.contractOf(e.owner);
        if (contract?.type !== "TeardownLifecycle") {
          forget(`left on the host: ${e.kind} is removed only by its owner's teardown, and ${e.owner} has none`);
        } else if (status?.external) {
          forget("owner is externally managed: left on the host");
        } else {
          addTeardown(e.owner, ownerReason(e.owner, input)).artifacts.push({ kind: e.kind, name: e.name, attributes: e.attributes });
        }
        break;
      }
      case "remove": {
        const refusal = spec.guard(e);
        if (refusal) {
          forget(`left on the host: ${refusal}`);
          break;
        }
        removals.push({
          type: "removeArtifact",
          kind: e.kind,
          name: e.name,
          owner: e.owner,
          operation: spec.operation,
          attributes: e.attributes,
          reason: `orphan: ${ownerReason(e.owner, input)}`,
        });
        forget("removed from the host");
        break;
      }
    }
  }

  // Resources gone from the config (or inactive) whose teardown is resource-specific (a daemon to stop, say).
  for (const status of input.statuses.values()) {
    if (input.activeOwners.has(status.owner) || input.protectedOwners.has(status.owner)) continue;
    if (status.contract !== "TeardownLifecycle" || status.external) continue;
    // An inactive (`when: false`) owner keeps its status; once its teardown left nothing, a new run would
    // only repeat it (and a backup and an event) on every reconcile.
    const inactive = input.configuredOwners.has(status.owner);
    if (inactive && status.artifacts.length === 0 && !teardowns.has(status.owner)) continue;
    addTeardown(status.owner, ownerReason(status.owner, input));
  }

  const deletes: GcAction[] = [];
  for (const status of input.statuses.values()) {
    if (!input.configuredOwners.has(status.owner) && !input.protectedOwners.has(status.owner)) {
      deletes.push({ type: "deleteStatus", owner: status.owner, reason: "resource is no longer in the config" });
    }
  }

  removals.sort((a, b) => input.teardown.get(a.kind).order - input.teardown.get(b.kind).order || compareText(a.name, b.name));
  const body: GcAction[] = [...teardowns.values(), ...removals, ...forgets, ...deletes];
  if (body.length === 0) return plan;
  const counts: Record<string, number> = {};
  for (const a of body) counts[a.type] = (counts[a.type] ?? 0) + 1;
  plan.actions = [
    { type: "backupState", reason: "before changing the ledger or removing anything" },
    ...body,
    { type: "recordEvent", topic: "gc", reason: "garbage collection", counts },
  ];
  return plan;
}

function ownerReason(owner: OwnerKey, input: GcInput): string {
  if (!input.configuredOwners.has(owner)) return `${owner} is no longer in the config`;
  if (!input.activeOwners.has(owner)) return `${owner} is inactive (when: false)`;
  return `${owner} no longer wants it`;
}
