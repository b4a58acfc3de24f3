// `spec.when`: a predicate on the state of other resources. Three answers: true, false, or undecidable.
import { t, type Schema } from "./schema.js";

export type WhenPredicate =
  | { resource: string; phase?: string; phaseIn?: string[] }
  | { all: WhenPredicate[] }
  | { any: WhenPredicate[] }
  | { not: WhenPredicate };

const RESOURCE_REF = /^[A-Z][A-Za-z0-9]*\/[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export const whenSchema: Schema<WhenPredicate> = t.union<WhenPredicate>(
  "a predicate: {resource: Kind/name, phase | phaseIn} or {all: [...]}, {any: [...]}, {not: ...}",
  t.object({
    resource: t.string({ pattern: RESOURCE_REF, patternHint: "Kind/name, e.g. HealthCheck/isp1" }),
    phase: t.optional(t.string({ minLength: 1 })),
    phaseIn: t.optional(t.array(t.string({ minLength: 1 }), { minItems: 1 })),
  }),
  t.object({ all: t.array(t.lazy("when", () => whenSchema), { minItems: 1 }) }),
  t.object({ any: t.array(t.lazy("when", () => whenSchema), { minItems: 1 }) }),
  t.object({ not: t.lazy("when", () => whenSchema) }),
);

/** Phase of each resource, keyed `Kind/name`; a missing entry means the state is not known yet. */
export type WhenState = ReadonlyMap<string, { phase: string }>;

export function evaluateWhen(p: WhenPredicate, state: WhenState): boolean | undefined {
  if ("resource" in p) {
    const s = state.get(p.resource);
    if (!s) return undefined;
    if (p.phase !== undefined) return s.phase === p.phase;
    if (p.phaseIn !== undefined) return p.phaseIn.includes(s.phase);
    return true;
  }
  if ("all" in p) {
    const r = p.all.map((x) => evaluateWhen(x, state));
    if (r.includes(false)) return false;
    return r.includes(undefined) ? undefined : true;
  }
  if ("any" in p) {
    const r = p.any.map((x) => evaluateWhen(x, state));
    if (r.includes(true)) return true;
    return r.includes(undefined) ? undefined : false;
  }
  const inner = evaluateWhen(p.not, state);
  return inner === undefined ? undefined : !inner;
}

export function whenReferences(p: WhenPredicate): string[] {
  if ("resource" in p) return [p.resource];
  if ("all" in p) return p.all.flatMap(whenReferences);
  if ("any" in p) return p.any.flatMap(whenReferences);
  return whenReferences(p.not);
}
