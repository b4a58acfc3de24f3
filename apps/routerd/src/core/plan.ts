// Stage "plan": a pure function of (desired, observed, ledger, status). It decides per artifact whether to
// create, update, leave or delete it, lists orphans and adoption candidates, and asks the GC planner what
// may be cleaned up. Nothing here touches the host.
import { kindDefinition, type EgressAllocation, type Resource } from "@routerd/api";
import { driftOf, linkNeedsRecreate, type Difference, type Step } from "@routerd/host";
import {
  artifactId,
  observe,
  parseOwnerKey,
  planGc,
  teardownRegistry,
  type ArtifactKind,
  type Attributes,
  type DesiredArtifact,
  type GcPlan,
  type Inventory,
  type Ledger,
  type LedgerEntry,
  type ObjectStatus,
  type OwnerKey,
} from "@routerd/resource";
import type { DesiredState } from "./desired.js";
import { exclusiveRemovals } from "./exclusive.js";
import { enforceReconcileSpec } from "./reconcile-spec.js";

export type Change = "create" | "update" | "unchanged" | "delete" | "unknown";

export interface PlannedArtifact {
  kind: ArtifactKind;
  name: string;
  owner: OwnerKey;
  action: "ensure" | "observe" | "delete";
  change: Change;
  ownership?: "created" | "adopted";
  differences?: Difference[];
  reason?: string;
}

export interface PlannedResource {
  id: string;
  owner: OwnerKey;
  state: "active" | "inactive" | "undecided" | "pending" | "removed";
  /** Why a pending resource waits (a status-sourced value it needs, or packages the host lacks). */
  reason?: string;
  /** Required packages the host does not have: the resource is Pending until they are installed. */
  missingPackages?: string[];
  artifacts: PlannedArtifact[];
}

export interface AdoptionCandidate {
  kind: ArtifactKind;
  name: string;
  owner: OwnerKey;
  reason: "matches" | "drifted";
  desired: Attributes;
  observed: Attributes;
  differences: Difference[];
}

export interface Plan {
  resources: PlannedResource[];
  orphans: GcPlan["orphans"];
  adoptionCandidates: AdoptionCandidate[];
  lookAlikes: GcPlan["lookAlikes"];
  unknownKinds: { kind: ArtifactKind; reason: string }[];
  gc: GcPlan;
  /** Numbers routerd chose for EgressRoutePolicy candidates that configure none. */
  allocations: EgressAllocation[];
  /** Host steps to reach the desired state (GC removals are in gc.actions). */
  steps: Step[];
  summary: { create: number; update: number; unchanged: number; delete: number; unknown: number; orphans: number; adoptionCandidates: number };
}

export interface PlanInput {
  desired: DesiredState;
  inventory: Inventory;
  ledger: Ledger;
  statuses: ReadonlyMap<OwnerKey, ObjectStatus>;
  allowEmpty: boolean;
}

const resourceId = (owner: OwnerKey) => {
  const p = parseOwnerKey(owner);
  return `${p.kind}/${p.name}`;
};

interface Classified {
  change: Change;
  differences?: Difference[];
  observed?: Attributes;
  reason?: string;
}

/**
 * A link routerd would create is there already and is not routerd's: it is never changed, and it is never
 * made again when routerd only adopted it (adopting takes over what exists, it does not rebuild it).
 */
function foreignLink(d: DesiredArtifact, entry: LedgerEntry | undefined, observed: Attributes): string | undefined {
  if (d.kind !== "linux.link" || d.attributes.linkType === undefined) return undefined;
  if (!entry) return `a link named ${d.name} exists that routerd did not create: left alone (adopt it with \`routerd adopt --apply\`, or choose another ifname)`;
  if (entry.ownership === "adopted" && linkNeedsRecreate(d.attributes, observed)) {
    return `the adopted link ${d.name} differs in its type or parameters; routerd does not remake a link it did not create`;
  }
  return undefined;
}

function classify(d: DesiredArtifact, entry: LedgerEntry | undefined, inventory: Inventory): Classified {
  const o = observe(inventory, d.kind, d.name);
  if (o.state === "unknown") return { change: "unknown", reason: o.reason };
  if (d.action === "observe") {
    if (o.state !== "present") return { change: "unchanged", reason: "observed only, not present" };
    // What the config expects of an artifact it only observes (an unmanaged link's MTU) is reported, never applied.
    const differences = Object.keys(d.attributes)
      .filter((k) => k !== "ifname" && o.artifact.attributes[k] !== d.attributes[k])
      .map((field) => ({ field, desired: d.attributes[field], observed: o.artifact.attributes[field] }));
    return { change: "unchanged", observed: o.artifact.attributes, ...(differences.length ? { differences, reason: "observed only: routerd does not change it" } : {}) };
  }
  // An optional sysctl or module this host lacks is left out (an optional module the kernel has on disk is not
  // lacking, only not loaded yet: `loadable`); an optional package (a Package entry) is still installed: there
  // `optional` only means that a failed install holds nothing back.
  if (o.state === "absent") return d.attributes.optional && d.attributes.loadable !== true && d.kind !== "package" ? { change: "unchanged", reason: "optional, and not on this host" } : { change: "create" };
  const foreign = foreignLink(d, entry, o.artifact.attributes);
  if (foreign) return { change: "unchanged", reason: foreign, observed: o.artifact.attributes };
  const differences = driftOf(d.kind, d.attributes, o.artifact.attributes, entry?.attributes);
  return { change: differences.length ? "update" : "unchanged", differences, observed: o.artifact.attributes };
}

/**
 * Kinds routerd only ever changes when it created them: one that exists on the host without a ledger entry
 * belongs to someone else and is left alone, and so is everything that lives in or on it (its link settings,
 * peers, addresses and routes through it).
 */
type Covers = (d: Pick<DesiredArtifact, "kind" | "name" | "attributes">) => boolean;
const EXCLUSIVE: Partial<Record<ArtifactKind, (name: string) => Covers>> = {
  "wireguard.device": (dev) => (d) =>
    (d.kind === "linux.link" && d.name === dev) ||
    (d.kind === "wireguard.peer" && d.name.startsWith(`${dev}/`)) ||
    ((d.kind === "linux.ipv4.address" || d.kind === "linux.ipv6.address") && d.attributes.ifname === dev) ||
    ((d.kind === "linux.ipv4.route" || d.kind === "linux.ipv6.route") && d.attributes.device === dev),
};

/** Why a desired artifact must not be touched (its exclusive parent exists and is not routerd's), if so. */
function foreignParents(desired: readonly DesiredArtifact[], ledger: Ledger, inventory: Inventory): (d: DesiredArtifact) => string | undefined {
  const rules: { covers: Covers; reason: string }[] = [];
  for (const d of desired) {
    const exclusive = EXCLUSIVE[d.kind];
    if (!exclusive || d.action !== "ensure" || ledger.get(d.kind, d.name)) continue;
    if (observe(inventory, d.kind, d.name).state !== "present") continue;
    const covers = exclusive(d.name);
    rules.push({
      covers: (x) => (x.kind === d.kind && x.name === d.name) || covers(x),
      reason: `${d.kind} ${d.name} exists on the host and routerd did not create it: left alone (choose another name, or take it over with routerd adopt --apply)`,
    });
  }
  return (d) => (rules.length ? rules.find((r) => r.covers(d))?.reason : undefined);
}

/**
 * Owners that need a required package the host does not have and nothing installs now (derived packages are
 * observed unless `--install-packages`): they wait (Pending) instead of failing half-way.
 */
function missingPackages(desired: readonly DesiredArtifact[], inventory: Inventory): Map<OwnerKey, string[]> {
  const out = new Map<OwnerKey, string[]>();
  const known = inventory.get("package");
  if (known?.status !== "known") return out;
  for (const d of desired) {
    if (d.kind !== "package" || d.action !== "observe" || d.attributes.optional === true || known.items.has(d.name)) continue;
    for (const o of d.owners) out.set(o, [...(out.get(o) ?? []), String(d.attributes.name)]);
  }
  return out;
}

const waitingForPackages = (names: readonly string[]) =>
  `waiting for package${names.length > 1 ? "s" : ""} ${names.join(", ")} (install with routerd reconcile --once --install-packages, or list them in a Package resource)`;

export function plan(input: PlanInput): Plan {
  const { view, intents } = input.desired;
  const desired = input.desired.desired;
  const result: Plan = {
    resources: [],
    orphans: [],
    adoptionCandidates: [],
    lookAlikes: [],
    unknownKinds: [],
    gc: { actions: [], orphans: [], lookAlikes: [], skipped: [] },
    allocations: input.desired.allocations,
    steps: [],
    summary: { create: 0, update: 0, unchanged: 0, delete: 0, unknown: 0, orphans: 0, adoptionCandidates: 0 },
  };

  // Per artifact id: the desired artifact, its ledger entry and what the plan decided (looked up once).
  const seen = new Map<string, { d: DesiredArtifact; entry: LedgerEntry | undefined; c: Classified }>();
  const foreign = foreignParents(desired, input.ledger, input.inventory);
  const missing = missingPackages(desired, input.inventory);
  for (const d of desired) {
    const entry = input.ledger.get(d.kind, d.name);
    let c = classify(d, entry, input.inventory);
    const notOurs = !entry && c.change !== "unknown" ? foreign(d) : undefined;
    if (notOurs) c = { change: "unknown", reason: notOurs, ...(c.observed ? { observed: c.observed } : {}) };
    const waits = missing.size && (c.change === "create" || c.change === "update") ? d.owners.find((o) => missing.has(o)) : undefined;
    if (waits) c = { change: "unknown", reason: waitingForPackages(missing.get(waits)!), ...(c.observed ? { observed: c.observed } : {}) };
    // An owner whose daemon state is unknown keeps what exists as it is, also in a file it shares with others
    // (a DHCPv6 client restarting must not rewrite the dnsmasq config, which would restart dnsmasq). A pending
    // owner is not among the desired owners any more: the ledger says what it shares.
    const heldBy =
      c.change === "update" && input.desired.held.size ? (d.owners.find((o) => input.desired.held.has(o)) ?? entry?.owners.find((o) => input.desired.held.has(o))) : undefined;
    if (heldBy) c = { change: "unchanged", reason: `kept as it is: ${input.desired.held.get(heldBy)}` };
    seen.set(artifactId(d), { d, entry, c });
    result.summary[c.change === "delete" ? "delete" : c.change] += 1;
    if (c.change === "create" || c.change === "update") result.steps.push({ op: "ensure", kind: d.kind, name: d.name, attributes: d.attributes });
    if (d.action === "ensure" && c.observed && !entry) {
      result.adoptionCandidates.push({
        kind: d.kind,
        name: d.name,
        owner: d.owners[0]!,
        reason: c.differences?.length ? "drifted" : "matches",
        desired: d.attributes.content !== undefined ? { ...d.attributes, content: "(rendered table)" } : d.attributes,
        observed: c.observed,
        differences: c.differences ?? [],
      });
    }
  }

  const planned = (r: Resource, state: PlannedResource["state"], reason?: string): PlannedResource => ({
    id: `${r.kind}/${r.metadata.name}`,
    owner: r.owner,
    state,
    ...(reason ? { reason } : {}),
    artifacts: (intents.get(r.owner) ?? []).map((i) => {
      const { d, entry, c } = seen.get(artifactId(i))!;
      const a: PlannedArtifact = { kind: i.kind, name: i.name, owner: i.owner, action: d.action, change: c.change };
      if (entry) a.ownership = entry.ownership;
      if (c.differences?.length) a.differences = c.differences;
      if (c.reason) a.reason = c.reason;
      return a;
    }),
  });
  result.resources.push(
    ...view.active.map((r) => {
      const lacking = missing.get(r.owner);
      return lacking ? { ...planned(r, "pending", waitingForPackages(lacking)), missingPackages: lacking } : planned(r, "active");
    }),
  );
  result.resources.push(...view.inactive.map((r) => planned(r, "inactive")));
  result.resources.push(...view.undecided.map((r) => planned(r, "undecided")));
  result.resources.push(...view.pending.map((p) => planned(p.resource, "pending", p.reason)));

  const configured = new Set(view.config.resources.map((r) => r.owner));
  const contractOf = (owner: OwnerKey) => kindDefinition(parseOwnerKey(owner).kind)?.contract;
  // Artifacts of undecided resources stay as they are: they count as desired for cleanup purposes.
  result.gc = planGc({
    desired,
    activeOwners: new Set(view.active.map((r) => r.owner)),
    configuredOwners: configured,
    // held includes the pending resources: waiting for a value never removes what they have.
    protectedOwners: new Set([...view.undecided.map((r) => r.owner), ...input.desired.held.keys(), ...missing.keys()]),
    ledger: input.ledger.list(),
    statuses: input.statuses,
    inventory: input.inventory,
    contractOf,
    teardown: teardownRegistry,
    allowEmpty: input.allowEmpty,
  });
  result.orphans = result.gc.orphans;
  result.lookAlikes = result.gc.lookAlikes;

  // Deletions appear under their owner, which may have left the config.
  const deletions = result.gc.actions.flatMap((a) =>
    a.type === "removeArtifact"
      ? [{ owner: a.owner, kind: a.kind, name: a.name, reason: a.reason }]
      : a.type === "teardownResource"
        ? a.artifacts.map((x) => ({ owner: a.owner, kind: x.kind, name: x.name, reason: a.reason }))
        : [],
  );
  const byOwner = new Map(result.resources.map((r) => [r.owner, r]));
  for (const del of deletions) {
    let r = byOwner.get(del.owner);
    if (!r) {
      r = { id: resourceId(del.owner), owner: del.owner, state: "removed", artifacts: [] };
      result.resources.push(r);
      byOwner.set(del.owner, r);
    }
    r.artifacts.push({ kind: del.kind, name: del.name, owner: del.owner, action: "delete", change: "delete", reason: del.reason });
    result.summary.delete += 1;
  }

  for (const x of exclusiveRemovals(input.desired, input.inventory, input.ledger)) {
    result.steps.push({ op: "remove", kind: x.kind, name: x.name, attributes: x.attributes });
    byOwner.get(x.owner)?.artifacts.push({ kind: x.kind, name: x.name, owner: x.owner, action: "delete", change: "delete", reason: x.reason });
    result.summary.delete += 1;
  }

  enforceReconcileSpec(result, view.config, input.ledger);

  for (const [kind, inv] of input.inventory) if (inv.status === "unknown") result.unknownKinds.push({ kind, reason: inv.reason });
  result.summary.orphans = result.orphans.length;
  result.summary.adoptionCandidates = result.adoptionCandidates.length;
  return result;
}

/** Does applying this plan change anything on the host or in the ledger? */
export function hasChanges(p: Plan): boolean {
  return p.steps.length > 0 || p.gc.actions.some((a) => a.type !== "backupState" && a.type !== "recordEvent");
}
