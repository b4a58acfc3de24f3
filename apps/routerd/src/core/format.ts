// Human and JSON renderings of a plan. JSON field names are part of the CLI contract.
import type { StepResult } from "@routerd/host";
import type { Plan, PlannedArtifact } from "./plan.js";

const SYMBOL: Record<PlannedArtifact["change"], string> = { create: "+", update: "~", delete: "-", unchanged: " ", unknown: "?" };

const show = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

export function planToJson(p: Plan, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    resources: p.resources.map((r) => ({
      id: r.id,
      owner: r.owner,
      state: r.state,
      ...(r.reason ? { reason: r.reason } : {}),
      artifacts: r.artifacts.map((a) => ({
        kind: a.kind,
        name: a.name,
        owner: a.owner,
        action: a.action,
        change: a.change,
        ...(a.ownership ? { ownership: a.ownership } : {}),
        ...(a.differences ? { differences: a.differences } : {}),
        ...(a.reason ? { reason: a.reason } : {}),
      })),
    })),
    orphans: p.orphans,
    adoptionCandidates: p.adoptionCandidates.map(({ differences, ...c }) => ({ ...c, differences })),
    lookAlikes: p.lookAlikes.map((l) => ({ kind: l.kind, name: l.name })),
    unknownKinds: p.unknownKinds,
    gc: { actions: p.gc.actions, skipped: p.gc.skipped, ...(p.gc.blocked ? { blocked: p.gc.blocked } : {}) },
    allocations: p.allocations,
    summary: p.summary,
    ...extra,
  };
}

export function planToText(p: Plan, opts: { verbose?: boolean } = {}): string {
  const lines: string[] = [];
  for (const r of p.resources) {
    const shown = r.artifacts.filter((a) => opts.verbose || (a.change !== "unchanged" && a.action !== "observe") || (a.action === "observe" && a.differences?.length));
    if (r.state === "pending") {
      lines.push(`${r.id} (pending: ${r.reason}; what it has is kept as it is)`);
      continue;
    }
    if (!shown.length) continue;
    const note = r.state === "removed" ? " (no longer in the config)" : r.state === "inactive" ? " (inactive: when is false)" : r.state === "undecided" ? " (when undecidable: kept as is)" : "";
    lines.push(`${r.id}${note}`);
    for (const a of shown) {
      const detail = a.differences?.map((d) => `${d.field}: ${show(d.observed)} → ${show(d.desired)}`).join(", ");
      lines.push(`  ${a.action === "observe" && a.differences?.length ? "!" : SYMBOL[a.change]} ${a.kind} ${a.name}${detail ? `  (${detail})` : ""}${a.reason && a.change !== "create" ? `  [${a.reason}]` : ""}`);
    }
  }
  for (const a of p.allocations) {
    const fields = a.allocated.map((f) => (f === "mark" ? `mark 0x${a.mark.toString(16)}` : `${f} ${a[f]}`)).join(", ");
    lines.push(`= EgressRoutePolicy/${a.policy} candidate ${a.candidate}: ${fields} (${a.recorded ? "as recorded in the ledger" : "allocated now, recorded in the ledger once applied"})`);
  }
  for (const c of p.adoptionCandidates.filter((c) => c.reason === "drifted")) {
    lines.push(`! ${c.kind} ${c.name}: on the host, not in the ledger, drifted (${c.differences.map((d) => d.field).join(", ")}); reconcile changes it`);
  }
  const matching = p.adoptionCandidates.filter((c) => c.reason === "matches").length;
  if (matching) lines.push(`= ${matching} desired artifact${matching === 1 ? " is" : "s are"} on the host already but not in the ledger (\`routerd adopt --candidates\` lists them)`);
  for (const l of p.lookAlikes) lines.push(`! ${l.kind} ${l.name}: in routerd's namespace but not in the ledger; left alone`);
  for (const o of p.orphans.filter((o) => o.ownership === "adopted")) lines.push(`! ${o.kind} ${o.name}: adopted, no longer wanted; released and left on the host`);
  for (const u of p.unknownKinds) lines.push(`? ${u.kind}: inventory unknown (${u.reason}); no creation or cleanup for this kind`);
  for (const s of p.gc.skipped) lines.push(`? ${s.kind} ${s.name}: kept (${s.reason})`);
  if (p.gc.blocked) lines.push(`! cleanup refused: ${p.gc.blocked}`);
  const s = p.summary;
  lines.push(`Plan: ${s.create} to create, ${s.update} to update, ${s.delete} to delete, ${s.unchanged} unchanged${s.unknown ? `, ${s.unknown} unknown` : ""}${s.adoptionCandidates ? `, ${s.adoptionCandidates} adoption candidates` : ""}.`);
  return lines.join("\n");
}

export function resultsToText(results: StepResult[]): string {
  const failed = results.filter((r) => !r.ok);
  const deferred = results.filter((r) => r.deferred);
  const applied = results.filter((r) => r.ok && !r.deferred);
  const lines = [`Applied ${applied.length} change${applied.length === 1 ? "" : "s"}${failed.length ? `, ${failed.length} failed` : ""}${deferred.length ? `, ${deferred.length} left to routerd serve` : ""}.`];
  for (const f of failed) lines.push(`  failed: ${f.op} ${f.kind} ${f.name}: ${f.error}`);
  for (const d of deferred) lines.push(`  deferred: ${d.op} ${d.kind} ${d.name} (daemons and leases are managed by routerd serve)`);
  for (const w of results.filter((r) => r.ok && r.warning)) lines.push(`  warning: ${w.op} ${w.kind} ${w.name}: ${w.warning}`);
  return lines.join("\n");
}
