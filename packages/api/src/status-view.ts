// Status fields of every resource as routerd knows them now, and `*From` resolution on top of them. One
// view serves the effective view (when, *From), plan, reconcile, serve and `status`: a field's value comes
// from the resource's kind (its spec, its daemon's facts, the host's links), a phase from the daemons, from
// routerd serve (health) or from the last reconcile. Everything is computed on first use and memoised.
import { makeConfigView } from "./config-view.js";
import type { ConfigView, PublishedStatus, Resource, RouterConfig } from "./kind.js";
import { kindDefinition } from "./kinds/index.js";
import { PHASE_FIELD, phaseMatches } from "./provides.js";
import { UNKNOWN_RUNTIME, type RuntimeView } from "./runtime.js";
import { valueFormat, type SourceUse } from "./status-source.js";
import type { FieldFact, WhenLookup } from "./when.js";

export interface StatusViewInput {
  config: RouterConfig;
  runtime?: RuntimeView;
  /** Lifecycle phase per `Kind/name` recorded by the last reconcile (status.json). */
  stored?: ReadonlyMap<string, { phase: string }>;
  /** Phases known better elsewhere, per `Kind/name` (health states from routerd serve); they win. */
  phases?: ReadonlyMap<string, { phase: string }>;
  /** Fields known better elsewhere, per `Kind/name` (serve's uplink choice, its cluster lease); they win. */
  facts?: ReadonlyMap<string, Record<string, unknown>>;
  /** Completes a resolved resource before it publishes (allocated EgressRoutePolicy numbers). */
  prepare?: (resource: Resource) => Resource;
}

/** A resource with its `*From` values filled in, or why it has to wait (a required source has no value). */
export type Resolution = { resource: Resource; pending?: undefined } | { resource: Resource; pending: string };

export interface StatusView extends WhenLookup {
  /** Everything a resource publishes now; `phase` included. */
  published(id: string): PublishedStatus & { phase?: string };
  resolve(resource: Resource): Resolution;
}

const idOf = (r: Resource) => `${r.kind}/${r.metadata.name}`;
const isSet = (v: unknown) => v !== undefined && v !== null && v !== "" && !(Array.isArray(v) && v.length === 0);

export function makeStatusView(input: StatusViewInput): StatusView {
  const runtime = input.runtime ?? UNKNOWN_RUNTIME;
  let byId: Map<string, Resource> | undefined;
  let configView: ConfigView | undefined;
  const resolutions = new Map<string, Resolution>();
  const statuses = new Map<string, PublishedStatus>();
  const resolving = new Set<string>();

  const find = (id: string) => (byId ??= new Map(input.config.resources.map((r) => [idOf(r), r]))).get(id);

  function published(id: string): PublishedStatus {
    let s = statuses.get(id);
    if (s) return s;
    const r = find(id);
    if (!r) s = { fields: {}, unknown: `${id} is not in the config` };
    else {
      const resolved = resolve(r);
      const status = kindDefinition(r.kind)?.status;
      const extra = input.facts?.get(id);
      if (resolved.pending) s = { fields: {}, unknown: `${id} is pending (${resolved.pending})` };
      else {
        const ready = input.prepare ? input.prepare(resolved.resource) : resolved.resource;
        s = status ? status(ready, (configView ??= makeConfigView(input.config, runtime)), extra) : { fields: {} };
      }
      if (extra) s = { ...s, fields: { ...s.fields, ...extra } };
    }
    statuses.set(id, s);
    return s;
  }

  function phase(id: string): string | undefined {
    return input.phases?.get(id)?.phase ?? published(id).phase ?? input.stored?.get(id)?.phase;
  }

  function field(id: string, name: string): FieldFact {
    if (name === PHASE_FIELD) {
      const p = phase(id);
      return p !== undefined ? { state: "present", value: p } : { state: "unknown", reason: `${id} has no phase yet` };
    }
    const s = published(id);
    const value = s.fields[name];
    if (isSet(value)) return { state: "present", value };
    return s.unknown ? { state: "unknown", reason: s.unknown } : { state: "absent" };
  }

  function resolve(r: Resource): Resolution {
    if (!r.sources) return { resource: r };
    const id = idOf(r);
    const known = resolutions.get(id);
    if (known) return known;
    if (resolving.has(id)) return { resource: r, pending: `its sources lead back to ${id}` };
    resolving.add(id);
    const result = fill(r, r.sources, field);
    resolving.delete(id);
    resolutions.set(id, result);
    return result;
  }

  return {
    phase,
    field,
    resolve,
    published: (id) => {
      const s = published(id);
      const p = phase(id);
      return p !== undefined ? { ...s, phase: p } : s;
    },
  };
}

/** Values for each use, then one copy of the spec with them written into their fields. */
function fill(r: Resource, uses: readonly SourceUse[], field: (id: string, name: string) => FieldFact): Resolution {
  const waiting: string[] = [];
  const writes: { parent: (string | number)[]; into: string; list: boolean; values: unknown[] }[] = [];
  for (const use of uses) {
    const fact = field(use.resource, use.field);
    const from = `${use.resource}.${use.field}`;
    if (use.dependency) {
      const unmet = unmetDependency(use, fact);
      if (unmet) waiting.push(unmet);
      continue;
    }
    // A source routerd cannot read now keeps what exists, optional or not: not knowing is not absence.
    if (fact.state === "unknown") {
      waiting.push(`${from} is unknown: ${fact.reason}`);
      continue;
    }
    if (fact.state === "absent") {
      if (!use.optional) waiting.push(`${from} has no value yet`);
      continue;
    }
    const raw = Array.isArray(fact.value) ? (use.list ? fact.value : fact.value.slice(0, 1)) : [fact.value];
    const values: unknown[] = [];
    for (const v of raw) {
      const c = valueFormat(use.format).convert(v);
      if ("problem" in c) {
        if (!use.optional) waiting.push(`${from}: ${c.problem}`);
      } else values.push(c.value);
    }
    if (use.into === undefined || !values.length) continue;
    // The path is spec..., the *From field (and its index in a list form).
    const parent = use.path.slice(1, use.list ? -2 : -1);
    const into = use.into;
    const same = writes.find((w) => w.into === into && w.parent.join("\0") === parent.join("\0"));
    if (same) same.values.push(...values);
    else writes.push({ parent, into, list: use.list, values });
  }
  if (waiting.length) return { resource: r, pending: waiting.join("; ") };
  if (!writes.length) return { resource: r };
  let spec = r.spec;
  for (const w of writes) {
    const holder = at(spec, w.parent) as Record<string, unknown>;
    const value = w.list ? [...new Set([...((holder[w.into] as unknown[] | undefined) ?? []), ...w.values])] : w.values[0];
    spec = withValue(spec, w.parent, w.into, value);
  }
  return { resource: { ...r, spec } };
}

/** Why a `dependsOn` entry does not hold now, or undefined when it does. */
function unmetDependency(use: SourceUse, fact: FieldFact): string | undefined {
  const from = `${use.resource}.${use.field}`;
  const want = use.dependency!;
  if (fact.state === "unknown") return use.optional ? undefined : `${from} is unknown: ${fact.reason}`;
  if (fact.state === "absent") return use.optional ? undefined : `${from} has no value yet`;
  if (want.equals === undefined) return undefined;
  const value = typeof fact.value === "string" ? fact.value : JSON.stringify(fact.value);
  const ok = use.field === PHASE_FIELD ? phaseMatches(value, want.equals) : value === want.equals;
  return ok ? undefined : `${from} is ${value}, not ${want.equals}`;
}

function at(value: unknown, path: readonly (string | number)[]): unknown {
  let v = value;
  for (const seg of path) v = (v as Record<string | number, unknown>)[seg];
  return v;
}

/** A copy of `value` with `path.key` set; only the objects on the path are copied. */
function withValue(value: unknown, path: readonly (string | number)[], key: string, v: unknown): unknown {
  if (!path.length) return { ...(value as object), [key]: v };
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[head as number] = withValue(value[head as number], rest, key, v);
    return copy;
  }
  const obj = value as Record<string, unknown>;
  return { ...obj, [head!]: withValue(obj[head as string], rest, key, v) };
}
