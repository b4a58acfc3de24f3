// Validation of what resources read from each other's status: `*From` fields and `when.state` keys. The
// source must exist, its kind must provide the field (the provides table), and the types must fit. A
// status-sourced value that routerd could never resolve is refused here, not left Pending forever.
import type { Resource } from "./kind.js";
import { kindDefinition } from "./kinds/index.js";
import { PHASE_FIELD, providedFields, providedType, type Provides } from "./provides.js";
import { nearest, type Path } from "./schema.js";
import { acceptedTypes, phaseFits, valueFormat, type SourceUse } from "./status-source.js";
import { whenReads, type WhenPredicate } from "./when.js";

export interface SourceIssue {
  /** Index of the resource in spec.resources. */
  index: number;
  /** From the resource root (`spec`, ...). */
  path: Path;
  message: string;
  hint?: string;
}

interface Checked {
  id: string;
  index: number;
  sources?: readonly SourceUse[];
  when?: WhenPredicate;
  spec?: unknown;
}

/** Which field names a provides table offers, for hints: those of a fitting type first. */
function fieldHint(kind: string, provides: Provides, fits?: (f: string) => boolean, wrong?: string): string {
  const all = providedFields(provides);
  const near = wrong ? nearest(wrong, all) : undefined;
  const fitting = fits ? all.filter(fits) : all;
  const list = fitting.length ? fitting.join(", ") : "none of a fitting type";
  return `${near ? `did you mean ${JSON.stringify(near)}? ` : ""}${kind} provides: ${list}`;
}

const describeType = (t: string) => (t === "stringList" ? "a list" : t === "objectList" ? "a list of objects" : `a ${t}`);

function checkUse(r: Checked, use: SourceUse, exists: (kind: string, name: string) => boolean, out: SourceIssue[]): void {
  const [kind, name] = use.resource.split("/") as [string, string];
  const def = kindDefinition(kind);
  const issue = (path: Path, message: string, hint?: string) => out.push({ index: r.index, path, message, ...(hint ? { hint } : {}) });
  if (!def || !exists(kind, name)) {
    if (use.dependency && use.optional && def) return; // an optional dependency may be missing
    issue([...use.path, "resource"], `${use.resource} is not defined`, def ? `define a ${kind} named ${name}, or name another source` : `unknown kind ${kind}`);
    return;
  }
  const type = providedType(def.provides, use.field);
  const fits = (f: string) => (f === PHASE_FIELD ? phaseFits(use) : acceptedTypes(use).includes(providedType(def.provides, f)!));
  if (type === undefined) {
    issue([...use.path, "field"], `${kind} does not provide ${JSON.stringify(use.field)}`, fieldHint(kind, def.provides, fits, use.field));
    return;
  }
  if (use.dependency) return; // any provided field can be waited for
  const wants = valueFormat(use.format).what;
  if (use.field === PHASE_FIELD && !phaseFits(use)) {
    issue(use.path, `reads ${use.resource}'s phase (the default field), but needs ${wants}`, `name the field: ${fieldHint(kind, def.provides, fits)}`);
    return;
  }
  if (!acceptedTypes(use).includes(type)) {
    issue([...use.path, "field"], `${use.resource}.${use.field} is ${describeType(type)}; this field needs ${wants}`, fieldHint(kind, def.provides, fits));
    return;
  }
  if (!use.list && use.into !== undefined && r.spec !== undefined) {
    const holder = use.path.slice(1, -1).reduce<unknown>((v, seg) => (v as Record<string | number, unknown>)?.[seg], r.spec) as Record<string, unknown> | undefined;
    const key = use.path[use.path.length - 1];
    if (holder && holder[use.into] !== undefined) issue(use.path, `${use.into} is set too`, `keep either ${use.into} or ${String(key)}`);
  }
}

function checkWhen(r: Checked, when: WhenPredicate, exists: (kind: string, name: string) => boolean, out: SourceIssue[]): void {
  for (const read of whenReads(when)) {
    if (read.key === undefined) continue; // the resource/phase form: its resource is checked with the references
    const [kind, name] = read.resource.split("/") as [string, string];
    const def = kindDefinition(kind);
    const path: Path = ["spec", "when", "state", read.key];
    if (!def || !exists(kind, name)) continue; // reported with the references
    if (providedType(def.provides, read.field) === undefined) {
      out.push({ index: r.index, path, message: `${kind} does not provide ${JSON.stringify(read.field)}`, hint: fieldHint(kind, def.provides, undefined, read.field) });
    }
  }
}

/** Resources whose sources lead back to themselves: each would wait for the other forever. */
function cycles(resources: readonly Checked[], out: SourceIssue[]): void {
  const byId = new Map(resources.map((r) => [r.id, r]));
  const state = new Map<string, "visiting" | "done">();
  const visit = (r: Checked, trail: string[]): void => {
    state.set(r.id, "visiting");
    for (const use of r.sources ?? []) {
      const next = byId.get(use.resource);
      if (!next) continue;
      if (state.get(next.id) === "visiting") {
        const loop = [...trail.slice(trail.indexOf(next.id)), r.id, next.id];
        out.push({ index: r.index, path: use.path, message: `status sources form a cycle: ${loop.join(" → ")}`, hint: "one of them must take a fixed value" });
      } else if (!state.has(next.id)) visit(next, [...trail, r.id]);
    }
    state.set(r.id, "done");
  };
  for (const r of resources) if (r.sources && !state.has(r.id)) visit(r, []);
}

export function checkSources(resources: readonly (Resource | Checked)[], exists: (kind: string, name: string) => boolean): SourceIssue[] {
  const out: SourceIssue[] = [];
  const checked: Checked[] = [];
  for (const x of resources) {
    const r: Checked = "metadata" in x ? { id: `${x.kind}/${x.metadata.name}`, index: x.index, ...(x.sources ? { sources: x.sources } : {}), ...(x.when ? { when: x.when } : {}), spec: x.spec } : x;
    if (!r.sources && !r.when) continue;
    checked.push(r);
    for (const use of r.sources ?? []) checkUse(r, use, exists, out);
    if (r.when) checkWhen(r, r.when, exists, out);
  }
  if (checked.some((r) => r.sources)) cycles(checked, out);
  return out;
}
