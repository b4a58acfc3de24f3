// `spec.when`: a predicate on the state of other resources. Three answers: true, false, or undecidable.
// Two spellings: routerd's `{resource: Kind/name, phase | phaseIn}` with all/any/not, and the original
// API's `{state: {"${Kind/name.status.field}": {equals, in, contains, exists, status}}, all, any}`.
import { phaseMatches, PHASE_FIELD } from "./provides.js";
import { Schema, t, type JsonSchema, type ParseContext, type Path } from "./schema.js";

export interface StateMatch {
  exists?: boolean;
  equals?: string;
  in?: string[];
  contains?: string;
  /** set: the field has a value; unset: it has none; unknown: routerd cannot tell now. */
  status?: "set" | "unset" | "unknown";
}

export type WhenPredicate =
  | { resource: string; phase?: string; phaseIn?: string[] }
  | { not: WhenPredicate }
  /** The original's form; routerd's {all: [...]} and {any: [...]} are this form without state. */
  | { state?: Record<string, StateMatch>; all?: WhenPredicate[]; any?: WhenPredicate[] };

const RESOURCE_REF = /^[A-Z][A-Za-z0-9]*\/[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
/** `${Kind/name.status.field}` */
export const STATE_KEY = /^\$\{([A-Z][A-Za-z0-9]*\/[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)\.status\.([A-Za-z][A-Za-z0-9]*)\}$/;

export function parseStateKey(key: string): { resource: string; field: string } | undefined {
  const m = STATE_KEY.exec(key);
  return m ? { resource: m[1]!, field: m[3]! } : undefined;
}

const stateMatch = t.object({
  exists: t.optional(t.bool()),
  equals: t.optional(t.string()),
  in: t.optional(t.array(t.string(), { minItems: 1 })),
  contains: t.optional(t.string({ minLength: 1 })),
  status: t.optional(t.enum("set", "unset", "unknown")),
  for: t.optional(
    t.string({ check: () => "is not supported: routerd decides `when` on every reconcile and keeps no hold-down timer" }).describe(
      "not supported; put thresholds on the HealthCheck (healthyThreshold/unhealthyThreshold) instead",
    ),
  ),
});

const lazyWhen = () => t.lazy<WhenPredicate>("when", () => whenSchema);

const resourceForm = t.object({
  resource: t.string({ pattern: RESOURCE_REF, patternHint: "Kind/name, e.g. HealthCheck/isp1" }),
  phase: t.optional(t.string({ minLength: 1 })),
  phaseIn: t.optional(t.array(t.string({ minLength: 1 }), { minItems: 1 })),
});
const notForm = t.object({ not: lazyWhen() });
/** The original's form; routerd's {all: [...]} and {any: [...]} are this form without state. */
const stateForm = t.object({
  state: t.optional(
    t.map(t.string({ pattern: STATE_KEY, patternHint: "a key like ${DHCPv4Client/wan.status.phase}" }), stateMatch as unknown as Schema<StateMatch>).describe(
      "status fields of other resources, keyed ${Kind/name.status.field}; every entry must hold",
    ),
  ),
  all: t.optional(t.array(lazyWhen(), { minItems: 1 }).describe("every predicate holds")),
  any: t.optional(t.array(lazyWhen(), { minItems: 1 }).describe("at least one predicate holds")),
});

/** Picks the form by its keys, so an error names the field that is wrong (a union could only say "no form fits"). */
class WhenSchema extends Schema<WhenPredicate> {
  parse(value: unknown, path: Path, ctx: ParseContext): WhenPredicate | undefined {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      if ("resource" in value) return resourceForm.parse(value, path, ctx);
      if ("not" in value) return notForm.parse(value, path, ctx);
      if (!("state" in value) && !("all" in value) && !("any" in value)) {
        ctx.issues.push({ path: [...path], message: "is empty", hint: "write {state: {\"${Kind/name.status.field}\": {equals: ...}}}, {resource: Kind/name, phase: ...}, {all: [...]}, {any: [...]} or {not: ...}" });
        return undefined;
      }
      return stateForm.parse(value, path, ctx) as WhenPredicate | undefined;
    }
    ctx.issues.push({ path: [...path], message: "must be a mapping: {state: {...}}, {resource: Kind/name, phase: ...}, {all: [...]}, {any: [...]} or {not: ...}" });
    return undefined;
  }
  jsonSchema(): JsonSchema {
    return { anyOf: [resourceForm.jsonSchema(), notForm.jsonSchema(), stateForm.jsonSchema()] };
  }
}

export const whenSchema: Schema<WhenPredicate> = new WhenSchema();

/** A status field's value as the effective view knows it now. */
export type FieldFact = { state: "present"; value: unknown } | { state: "absent" } | { state: "unknown"; reason: string };

/** What `when` reads: a resource's phase, or any field it provides. */
export interface WhenLookup {
  phase(id: string): string | undefined;
  field(id: string, field: string): FieldFact;
}

/** Phase of each resource, keyed `Kind/name`; a missing entry means the state is not known yet. */
export type WhenState = ReadonlyMap<string, { phase: string }>;

function lookupOf(state: WhenState | WhenLookup): WhenLookup {
  if (!(state instanceof Map)) return state as WhenLookup;
  const map = state as WhenState;
  const phase = (id: string) => map.get(id)?.phase;
  return {
    phase,
    field: (id, field) => {
      const p = field === PHASE_FIELD ? phase(id) : undefined;
      return p !== undefined ? { state: "present", value: p } : { state: "unknown", reason: `${id}.${field} is not known` };
    },
  };
}

const textOf = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : JSON.stringify(v));
const isSet = (v: unknown) => v !== undefined && v !== null && v !== "" && !(Array.isArray(v) && v.length === 0);

export function evaluateStateMatch(m: StateMatch, fact: FieldFact, isPhase: boolean): boolean | undefined {
  if (fact.state === "unknown") return m.status === "unknown" ? true : undefined;
  if (m.status === "unknown") return false;
  const set = fact.state === "present" && isSet(fact.value);
  const value = fact.state === "present" ? fact.value : undefined;
  const equal = (want: string) => set && (isPhase ? phaseMatches(textOf(value), want) : textOf(value) === want);
  const checks: boolean[] = [];
  if (m.status !== undefined) checks.push(m.status === "set" ? set : !set);
  if (m.exists !== undefined) checks.push(m.exists === set);
  if (m.equals !== undefined) checks.push(equal(m.equals));
  if (m.in !== undefined) checks.push(m.in.some(equal));
  if (m.contains !== undefined) checks.push(set && (Array.isArray(value) ? value.some((x) => textOf(x) === m.contains) : textOf(value).includes(m.contains)));
  if (!checks.length) checks.push(set); // an empty match asks only for a value
  return checks.every(Boolean);
}

/** AND of three-valued answers: false wins, then undecidable. */
function all(answers: (boolean | undefined)[]): boolean | undefined {
  if (answers.includes(false)) return false;
  return answers.includes(undefined) ? undefined : true;
}

function any(answers: (boolean | undefined)[]): boolean | undefined {
  if (answers.includes(true)) return true;
  return answers.includes(undefined) ? undefined : false;
}

export function evaluateWhen(p: WhenPredicate, state: WhenState | WhenLookup): boolean | undefined {
  return evaluate(p, lookupOf(state));
}

function evaluate(p: WhenPredicate, look: WhenLookup): boolean | undefined {
  if ("resource" in p) {
    const s = look.phase(p.resource);
    if (s === undefined) return undefined;
    if (p.phase !== undefined) return phaseMatches(s, p.phase);
    if (p.phaseIn !== undefined) return p.phaseIn.some((x) => phaseMatches(s, x));
    return true;
  }
  if ("not" in p) {
    const inner = evaluate(p.not, look);
    return inner === undefined ? undefined : !inner;
  }
  const parts: (boolean | undefined)[] = [];
  if ("state" in p && p.state) {
    for (const [key, m] of Object.entries(p.state)) {
      const k = parseStateKey(key)!;
      parts.push(evaluateStateMatch(m, look.field(k.resource, k.field), k.field === PHASE_FIELD));
    }
  }
  if (p.all) parts.push(all(p.all.map((x) => evaluate(x, look))));
  if (p.any) parts.push(any(p.any.map((x) => evaluate(x, look))));
  return all(parts);
}

/** The resources a predicate reads, with the field (`phase` for the resource/phase form). */
export function whenReads(p: WhenPredicate): { resource: string; field: string; key?: string }[] {
  if ("resource" in p) return [{ resource: p.resource, field: PHASE_FIELD }];
  if ("not" in p) return whenReads(p.not);
  const out: { resource: string; field: string; key?: string }[] = [];
  if ("state" in p && p.state) for (const key of Object.keys(p.state)) out.push({ ...parseStateKey(key)!, key });
  for (const x of p.all ?? []) out.push(...whenReads(x));
  for (const x of p.any ?? []) out.push(...whenReads(x));
  return out;
}

export function whenReferences(p: WhenPredicate): string[] {
  return whenReads(p).map((r) => r.resource);
}
