// The reconcile pipeline with I/O: load state → observe → plan → (write-ahead) → apply → verify → record.
// Pure stages live in desired.ts and plan.ts; this file is the only one that sequences host changes.
import { kindDefinition, makeConfigView, needsEgressNumbers, type RouterConfig, type StatusView, type WhenState } from "@routerd/api";
import { NAME_HINTED_KINDS, apply, detectHostServices, hasModuleSupport, hasPackageDatabase, loadableKernelModules, keyFacts, managersOf, readHostOs, observeInventory, prefetchInventory, type DaemonPort, type InventoryPrefetch, type HostContext, type NameHints, type ObservationCache, type ResidentView, type StepResult } from "@routerd/host";
import type { RuntimeView } from "@routerd/api";
import type { EgressSelection, IngressSelection } from "@routerd/render";
import {
  LedgerSession,
  artifactId,
  backupLedger,
  traceStage,
  observe,
  parseOwnerKey,
  sameAttributes,
  readStatuses,
  writeStatuses,
  type ArtifactKind,
  type Inventory,
  type Ledger,
  type ObjectStatus,
  type OwnerKey,
} from "@routerd/resource";
import { computeDesired, recordableAttributes, type DesiredState } from "./desired.js";
import type { SupervisorMode } from "./service-units.js";
import { readSupervisorMode } from "./supervisor-mode.js";
import { hasChanges, plan, type Plan } from "./plan.js";
import { readRuntime, readsInterfaceStatus } from "./runtime.js";
import { statusViewFor } from "./status.js";
import { egressAllocation } from "./egress-numbers.js";
import { verifyResults } from "./verify.js";

/** Kinds observed every run, even when nothing desired uses them: look-alikes and ledger leftovers. */
const ALWAYS_OBSERVED: ArtifactKind[] = ["nft.table", "linux.ipv4.fwmarkRule"];

export interface EngineOptions {
  host: HostContext;
  allowEmpty?: boolean;
  selection?: EgressSelection;
  ingress?: IngressSelection;
  runtime?: RuntimeView;
  daemons?: DaemonPort;
  /** Extra `Kind/name → phase` facts for `when` (daemon states from routerd serve). */
  when?: WhenState;
  /** Build the status view even when the config reads no status (routerd serve and `status` publish it). */
  publish?: boolean;
  /** Fields routerd serve knows better, per `Kind/name` (its uplink transition times, say). */
  facts?: ReadonlyMap<string, Record<string, unknown>>;
  /** Who runs the daemons (serve's supervisor or generated units); default: what the state dir recorded. */
  supervisor?: SupervisorMode;
  /** Install the packages the config needs (derived from its kinds) instead of only showing them. */
  installPackages?: boolean;
  /** Work that does not depend on the outcome, run while the host is being changed (ip and nft run meanwhile). */
  whileApplying?: () => void;
  /**
   * Called once the plan is ready, before anything is written: false abandons the run with no change. A
   * confirm-or-rollback revert plans ahead of its deadline and waits here until the deadline.
   */
  beforeApply?: () => Promise<boolean>;
  /** Told the desired state before anything is applied (serve configures its daemons from the active view). */
  onDesired?: (desired: DesiredState) => void;
  /**
   * A resident view of the kernel (routerd serve): watched kinds are read from it while no notification says
   * they changed; this run's own changes are reported to it. One-shot commands observe everything afresh.
   */
  resident?: ResidentView;
}

export interface PlanRun {
  desired: DesiredState;
  statuses: Map<OwnerKey, ObjectStatus>;
  inventory: Inventory;
  plan: Plan;
  /** What every resource publishes; built when the config reads status or `publish` asked for it. */
  status?: StatusView;
}

export async function observeFor(desired: DesiredState, ledgerEntries: Iterable<{ kind: ArtifactKind; name: string }>, host: HostContext, prefetch?: InventoryPrefetch, cache?: ObservationCache): Promise<Inventory> {
  const kinds = new Set<ArtifactKind>(ALWAYS_OBSERVED);
  const hints = new Map<ArtifactKind, Set<string>>();
  const add = (kind: ArtifactKind, name: string) => {
    kinds.add(kind);
    if (!NAME_HINTED_KINDS.has(kind)) return; // bulk sources read everything anyway
    const set = hints.get(kind) ?? new Set<string>();
    set.add(name);
    hints.set(kind, set);
  };
  for (const d of desired.desired) add(d.kind, d.name);
  for (const e of ledgerEntries) add(e.kind, e.name);
  if (kinds.has("linux.ipv4.routeTable")) kinds.add("linux.ipv4.route");
  return observeInventory(host, kinds, hints as NameHints, prefetch, cache);
}

/** plan and `reconcile --dry-run`: reads state, never writes it. */
export async function planOnly(config: RouterConfig, opts: EngineOptions, stateDir: string): Promise<PlanRun> {
  const session = LedgerSession.open(stateDir);
  try {
    return await planWith(config, opts, session);
  } finally {
    session.close();
  }
}

async function planWith(config: RouterConfig, opts: EngineOptions, session: LedgerSession): Promise<PlanRun> {
  traceStage("plan started");
  // The host is read while the desired state is computed; the lock keeps other routerd processes out meanwhile.
  const ledgerKinds = new Set<ArtifactKind>(ALWAYS_OBSERVED);
  for (const e of session.ledger.values()) ledgerKinds.add(e.kind);
  const cache = opts.resident?.cache;
  const prefetch = prefetchInventory(opts.host, ledgerKinds, cache);
  const statuses = readStatuses(session.stateDir);
  traceStage("ledger and status read");
  const links = readsInterfaceStatus(config) || (opts.publish && config.resources.some((r) => r.kind === "Interface"));
  const reads = opts.publish || config.resources.some((r) => r.when || r.sources);
  const runtime = opts.runtime ?? (await readRuntime(makeConfigView(config), opts.host.runDir, { ...(links ? { links: opts.host } : {}), ...(reads ? { wireguard: opts.host } : {}) }));
  traceStage("runtime facts read");
  // Only configs that use `when` or `*From` pay for the status view (and runs that publish it).
  const egressNumbers = needsEgressNumbers(config.resources) ? await egressAllocation(config, session.ledger, opts.host, prefetch, cache) : undefined;
  const status = reads
    ? statusViewFor(config, runtime, statuses, {
        ...(opts.when ? { when: opts.when } : {}),
        ...(opts.selection ? { selection: opts.selection } : {}),
        ...(opts.facts ? { facts: opts.facts } : {}),
        ...(egressNumbers ? { egress: egressNumbers } : {}),
      })
    : undefined;
  const egress = egressNumbers;
  const desired = computeDesired({
    config,
    when: status ?? new Map(),
    ...(status ? { sources: status } : {}),
    ...(egress ? { egress } : {}),
    ...(opts.selection ? { selection: opts.selection } : {}),
    ...(opts.ingress ? { ingress: opts.ingress } : {}),
    runtime,
    stateDir: opts.host.stateDir,
    keys: (path, what) => keyFacts(opts.host, path, what),
    ...(hasPackageDatabase(opts.host) ? { packages: { os: readHostOs(opts.host), managers: managersOf(opts.host), install: Boolean(opts.installPackages) } } : {}),
    hostRuntime: { modules: hasModuleSupport(), loadable: loadableKernelModules(), ...detectHostServices(opts.host) },
    supervisor: opts.supervisor ?? readSupervisorMode(opts.host.stateDir),
    daemonDirs: { runDir: opts.host.runDir, stateDir: opts.host.stateDir, root: opts.host.root },
  });
  traceStage("desired state computed");
  opts.onDesired?.(desired);
  const inventory = await observeFor(desired, session.ledger.values(), opts.host, prefetch, cache);
  traceStage("host observed");
  return { desired, inventory, statuses, plan: plan({ desired, inventory, ledger: session.ledger, statuses, allowEmpty: opts.allowEmpty ?? false }), ...(status ? { status } : {}) };
}

export interface ReconcileResult extends PlanRun {
  results: StepResult[];
  /** Re-observed after applying. */
  verified: Inventory;
  ok: boolean;
  changed: boolean;
  /** beforeApply said no: nothing was written. */
  abandoned?: boolean;
}

export async function reconcileOnce(config: RouterConfig, opts: EngineOptions): Promise<ReconcileResult> {
  const session = LedgerSession.open(opts.host.stateDir);
  try {
    const run = await planWith(config, opts, session);
    if (opts.beforeApply && !(await opts.beforeApply())) return { ...run, results: [], verified: run.inventory, ok: true, changed: false, abandoned: true };
    const { plan: p, desired } = run;
    const ledger = session.ledger;
    const mutationsBefore = ledger.mutations;
    const byId = new Map(desired.desired.map((d) => [artifactId(d), d]));
    const desiredIds = new Set(byId.keys());

    // Write-ahead: every artifact about to be created is recorded as pending before the host changes.
    const creates = p.steps.filter((s) => observe(run.inventory, s.kind, s.name).state === "absent");
    const now = new Date();
    for (const s of creates) {
      const d = byId.get(artifactId(s))!;
      if (!ledger.get(s.kind, s.name)) ledger.record({ kind: s.kind, name: s.name, owners: d.owners, ownership: "created", state: "pending", attributes: recordableAttributes(d), now });
    }
    traceStage("planned");
    if (creates.length) session.save();
    traceStage("write-ahead ledger saved");

    const gcRemovals = p.gc.actions.flatMap((a) =>
      a.type === "removeArtifact"
        ? [{ op: "remove" as const, kind: a.kind, name: a.name, attributes: a.attributes }]
        : a.type === "teardownResource"
          ? a.artifacts.map((x) => ({ op: "remove" as const, kind: x.kind, name: x.name, attributes: x.attributes }))
          : [],
    );
    if (p.gc.actions.length) backupLedger(session.stateDir);
    const applying = apply(opts.host, {
      steps: [...p.steps, ...gcRemovals],
      inventory: run.inventory,
      desired: desiredIds,
      ...(opts.daemons ? { daemons: opts.daemons } : {}),
    });
    applying.catch(() => undefined); // awaited below; not "unhandled" while this run uses the wait
    const previous = run.statuses; // read at the start of this run, under the same lock
    let expected: Map<OwnerKey, ObjectStatus> | undefined;
    if (p.steps.length || gcRemovals.length) {
      // Once apply has started its commands (a macrotask later), use the wait: the statuses of a run where
      // every step succeeds, and the caller's own work. Neither changes the host or the ledger.
      await new Promise((resolve) => setImmediate(resolve));
      opts.whileApplying?.();
      expected = nextStatuses(run, [], previous);
    }
    const applied = await applying;

    traceStage("applied");
    // What this run changed is read again, from the host: a resident view forgets it before verifying.
    if (applied.length) opts.resident?.touched(applied.map((r) => r.kind));
    // Verify by re-observing (only when something was applied); record only what the host confirms, and a
    // desired artifact missing afterwards fails the run even when its executor said it succeeded.
    const verified = applied.length ? await observeFor(desired, ledger.values(), opts.host, undefined, opts.resident?.cache) : run.inventory;
    const results = applied.length ? verifyResults(desired.desired, run.inventory, verified, applied) : applied;
    // A step that failed or did not verify may have changed more than it said: the next run reads everything.
    if (results.some((r) => !r.ok)) opts.resident?.doubt("a change did not apply as planned");
    traceStage("verified");
    recordConfirmed(ledger, desired, verified, now, results);
    forgetRemoved(ledger, p, gcRemovals, results, verified);
    // A no-op run writes nothing: the ledger and status files change only when something did.
    if (ledger.mutations !== mutationsBefore) session.save({ destructive: false });
    traceStage("ledger saved");
    const next = expected && results.every((r) => r.ok) ? expected : nextStatuses(run, results, previous);
    if (statusesChanged(previous, next)) writeStatuses(session.stateDir, next);
    traceStage("status saved");
    const ok = results.every((r) => r.ok);
    return { ...run, results, verified, ok, changed: hasChanges(p) };
  } finally {
    session.close();
  }
}

/**
 * Desired artifacts the host now has become `present` in the ledger; pending ones it does not have are forgotten,
 * and so are those whose step succeeded only with a warning (an optional module modprobe could not load): the
 * executor says it did not bring them about, whatever an observation says.
 */
export function recordConfirmed(ledger: Ledger, desired: DesiredState, verified: Inventory, now: Date, results: readonly StepResult[] = []): void {
  const warned = new Set(results.filter((r) => r.op === "ensure" && r.ok && r.warning).map((r) => `${r.kind}/${r.name}`));
  for (const d of desired.desired) {
    if (d.action !== "ensure") continue;
    const entry = ledger.get(d.kind, d.name);
    if (warned.has(`${d.kind}/${d.name}`)) {
      if (entry?.state === "pending") ledger.forget(d.kind, d.name);
      continue;
    }
    const seen = observe(verified, d.kind, d.name);
    if (seen.state === "present") {
      if (entry) {
        const attributes = { ...recordableAttributes(d), ...(d.kind === "nft.table" ? { hostDigest: seen.artifact.attributes.hostDigest } : {}) };
        const same = entry.state === "present" && sameAttributes(entry.attributes, attributes) && entry.owners.join("\n") === d.owners.join("\n");
        if (!same) ledger.record({ kind: d.kind, name: d.name, owners: d.owners, ownership: entry.ownership, state: "present", attributes, now });
      }
    } else if (seen.state === "absent" && entry?.state === "pending") {
      ledger.forget(d.kind, d.name);
    }
  }
}

/** Ledger entries the GC removed (and the host confirms gone), or only had to forget, leave the ledger. */
function forgetRemoved(ledger: Ledger, p: Plan, gcRemovals: { kind: ArtifactKind; name: string }[], results: StepResult[], verified: Inventory): void {
  const removed = new Set(results.filter((r) => r.op === "remove" && r.ok && !r.deferred).map((r) => `${r.kind}/${r.name}`));
  const removalIds = new Set(gcRemovals.map((g) => `${g.kind}/${g.name}`));
  for (const a of p.gc.actions) {
    if (a.type !== "forgetLedger") continue;
    const id = `${a.kind}/${a.name}`;
    if (!removalIds.has(id) || (removed.has(id) && observe(verified, a.kind, a.name).state !== "present")) ledger.forget(a.kind, a.name);
  }
  for (const a of p.gc.actions) {
    if (a.type !== "teardownResource") continue;
    for (const x of a.artifacts) if (removed.has(`${x.kind}/${x.name}`)) ledger.forget(x.kind, x.name);
  }
}

function nextStatuses(run: PlanRun, results: StepResult[], previous: Map<OwnerKey, ObjectStatus>): Map<OwnerKey, ObjectStatus> {
  const failed = new Map<string, string>();
  for (const r of results) if (!r.ok) failed.set(`${r.kind}/${r.name}`, r.error ?? "failed");
  const now = new Date().toISOString();
  const out = new Map<OwnerKey, ObjectStatus>();
  const gone = new Set(run.plan.gc.actions.filter((a) => a.type === "deleteStatus").map((a) => a.owner));
  for (const [owner, s] of previous) if (!gone.has(owner)) out.set(owner, s);
  const { view, intents } = run.desired;
  const inactive = new Set(view.inactive);
  const pending = new Map(view.pending.map((p) => [p.resource, p.reason]));
  const lacking = new Map(run.plan.resources.filter((p) => p.missingPackages).map((p) => [p.owner, p.reason!]));
  for (const r of view.config.resources) {
    const def = kindDefinition(r.kind)!;
    const mine = intents.get(r.owner);
    const errors = failed.size && mine ? (mine.map((i) => failed.get(`${i.kind}/${i.name}`)).filter(Boolean) as string[]) : [];
    const state = mine ? "active" : inactive.has(r) ? "inactive" : pending.has(r) ? "pending" : "undecided";
    const prev = previous.get(r.owner);
    const next: ObjectStatus = { owner: r.owner, lifecycleClass: def.class, contract: def.contract.type, phase: "Ready", artifacts: [], updatedAt: now };
    if (state === "inactive") {
      next.phase = "Pending";
      next.reason = "WhenFalse";
    } else if (state === "pending") {
      // Waiting for a status-sourced value: what it had stays, and so does its list of artifacts.
      next.phase = "Pending";
      next.reason = "SourceUnresolved";
      next.message = pending.get(r)!;
      next.artifacts = prev?.artifacts ?? [];
    } else if (lacking.has(r.owner)) {
      next.phase = "Pending";
      next.reason = "PackageMissing";
      next.message = lacking.get(r.owner)!;
    } else if (state === "undecided") {
      next.phase = prev?.phase ?? "Unknown";
      next.reason = "WhenUndecidable";
    } else if (errors.length) {
      next.phase = "Failed";
      next.reason = "ApplyFailed";
      next.message = errors.join("; ");
    }
    if (state === "undecided") next.artifacts = prev?.artifacts ?? [];
    else for (const i of mine ?? []) if (i.action === "ensure") next.artifacts.push({ kind: i.kind, name: i.name });
    // Keep the old timestamp when nothing else changed, so status.json only moves on real changes.
    out.set(r.owner, prev && sameStatus(prev, next) ? prev : next);
  }
  return out;
}

function sameStatus(a: ObjectStatus, b: ObjectStatus): boolean {
  if (a.phase !== b.phase || a.reason !== b.reason || a.message !== b.message || a.contract !== b.contract) return false;
  if (a.lifecycleClass !== b.lifecycleClass || a.external !== b.external || a.artifacts.length !== b.artifacts.length) return false;
  return a.artifacts.every((x, i) => x.kind === b.artifacts[i]!.kind && x.name === b.artifacts[i]!.name);
}

function statusesChanged(a: Map<OwnerKey, ObjectStatus>, b: Map<OwnerKey, ObjectStatus>): boolean {
  if (a.size !== b.size) return true;
  for (const [k, v] of b) if (a.get(k) !== v) return true;
  return false;
}
