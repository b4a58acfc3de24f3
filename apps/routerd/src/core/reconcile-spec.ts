// spec.reconcile applied to a plan (pure): nothing on a protected interface is changed or removed, and in
// strict mode routerd changes only what it created or adopted. What is held back stays visible in the plan.
import { artifactIfname, makeConfigView, protectedIfnames, type RouterConfig } from "@routerd/api";
import { artifactId, type GcAction, type Ledger } from "@routerd/resource";
import type { Plan } from "./plan.js";

export function enforceReconcileSpec(plan: Plan, config: RouterConfig, ledger: Ledger): void {
  const spec = config.reconcile;
  if (!spec) return;
  const guarded = protectedIfnames(config, makeConfigView(config));
  const isGuarded = (attrs: Readonly<Record<string, unknown>>) => {
    const ifname = artifactIfname(attrs);
    return ifname !== undefined && guarded.has(ifname);
  };
  const adoptable = new Set(plan.adoptionCandidates.map(artifactId));
  const guardedRemovals = new Set<string>();
  const isGuardedName = (kind: string, name: string) => guardedRemovals.has(`${kind}/${name}`);
  const held = new Map<string, string>();
  plan.steps = plan.steps.filter((s) => {
    if (isGuarded(s.attributes)) held.set(artifactId(s), `protected (spec.reconcile): routerd never changes ${String(artifactIfname(s.attributes))}`);
    else if (spec.mode === "strict" && s.op === "ensure" && adoptable.has(artifactId(s)) && !ledger.get(s.kind, s.name)) {
      held.set(artifactId(s), "strict: on the host but not routerd's; adopt it first (routerd adopt --apply)");
    } else return true;
    return false;
  });
  // Cleanup never touches a protected interface either.
  plan.gc.actions = plan.gc.actions.flatMap((a): GcAction[] => {
    if (a.type === "removeArtifact" && isGuarded(a.attributes)) {
      guardedRemovals.add(`${a.kind}/${a.name}`);
      plan.gc.skipped.push({ kind: a.kind, name: a.name, owner: a.owner, reason: "on a protected interface (spec.reconcile): left on the host" });
      plan.summary.delete -= 1;
      return [];
    }
    if (a.type === "teardownResource") {
      const kept = a.artifacts.filter((x) => isGuarded(x.attributes));
      for (const x of kept) guardedRemovals.add(`${x.kind}/${x.name}`);
      for (const x of kept) plan.gc.skipped.push({ kind: x.kind, name: x.name, owner: a.owner, reason: "on a protected interface (spec.reconcile): left on the host" });
      plan.summary.delete -= kept.length;
      return kept.length === a.artifacts.length ? [] : [{ ...a, artifacts: a.artifacts.filter((x) => !isGuarded(x.attributes)) }];
    }
    return [a];
  });
  // What was kept stays routerd's: its ledger entry is not forgotten.
  const kept = new Set(plan.gc.skipped.map((s) => `${s.kind}/${s.name}`));
  plan.gc.actions = plan.gc.actions.filter((a) => a.type !== "forgetLedger" || !kept.has(`${a.kind}/${a.name}`) || !isGuardedName(a.kind, a.name));
  if (!held.size && !plan.gc.skipped.length) return;
  for (const r of plan.resources) {
    r.artifacts = r.artifacts.filter((a) => !(a.change === "delete" && plan.gc.skipped.some((s) => s.kind === a.kind && s.name === a.name)));
    for (const a of r.artifacts) {
      const why = held.get(`${a.kind}/${a.name}`);
      if (!why || (a.change !== "create" && a.change !== "update")) continue;
      plan.summary[a.change] -= 1;
      plan.summary.unchanged += 1;
      a.change = "unchanged";
      a.reason = why;
    }
  }
}
