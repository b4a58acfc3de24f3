// What a kind offers to others: the status fields `*From` sources and `when.state` keys may read
// (the original API's "provides" table). Every kind provides `phase`; the table lists the rest.

/** The original API's value types of a provided field. */
export type ProvidedType = "string" | "stringList" | "int" | "bool" | "object" | "objectList" | "timestamp";

/** Field name → type, without `phase` (every kind has it). */
export type Provides = Readonly<Record<string, ProvidedType>>;

/** Fields whose value is the resource's phase. */
export const PHASE_FIELD = "phase";

export function providedType(provides: Provides, field: string): ProvidedType | undefined {
  if (field === PHASE_FIELD) return "string";
  return Object.hasOwn(provides, field) ? provides[field] : undefined;
}

/** Every field a kind provides, `phase` first: for hints and the reference. */
export function providedFields(provides: Provides): string[] {
  return [PHASE_FIELD, ...Object.keys(provides)];
}

/**
 * Phase names of the original that mean one of ours. Its address and route kinds report `Applied` where
 * routerd says `Ready`; a config comparing with either works.
 */
const PHASE_ALIASES: Readonly<Record<string, string>> = { Applied: "Ready" };

export function phaseMatches(actual: string, wanted: string): boolean {
  return actual === wanted || PHASE_ALIASES[wanted] === actual;
}
