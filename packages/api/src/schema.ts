// A small schema DSL: one definition gives the TypeScript type, the validator (every issue, with its path)
// and the JSON Schema for editors. Formats live in formats.ts.
import { INTERFACE_KINDS } from "./interface-kinds.js";
import type { SourceUse } from "./status-source.js";

/**
 * Where a value sits. Parsers share one path array down the tree (push before a child, pop after), so a
 * 10,000-resource config does not allocate a path per field; anything that keeps a path copies it.
 */
export type Path = (string | number)[];

export interface Issue {
  path: Path;
  message: string;
  hint?: string;
  /** Point at the key instead of the value (unknown fields). */
  atKey?: boolean;
}

/** A reference to another resource by metadata.name, checked after all resources are parsed. */
export interface RefUse {
  path: Path;
  name: string;
  kinds: readonly string[];
}

export interface ParseContext {
  issues: Issue[];
  refs: RefUse[];
  /** `*From` uses, created on the first one (most resources have none). */
  sources?: SourceUse[];
}

export type JsonSchema = Record<string, unknown>;

export abstract class Schema<T> {
  description?: string;
  /** Parses and normalises `value`; returns undefined after recording issues when it is invalid. */
  abstract parse(value: unknown, path: Path, ctx: ParseContext): T | undefined;
  abstract jsonSchema(): JsonSchema;
  describe(text: string): this {
    this.description = text;
    return this;
  }
  protected withDescription(s: JsonSchema): JsonSchema {
    return this.description ? { description: this.description, ...s } : s;
  }
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

const typeName = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "object" ? "a mapping" : `a ${typeof v}`);

export class StringSchema extends Schema<string> {
  constructor(
    private readonly opts: {
      pattern?: RegExp;
      patternHint?: string;
      minLength?: number;
      maxLength?: number;
      check?: (v: string) => string | undefined;
      normalize?: (v: string) => string;
      format?: string;
    } = {},
  ) {
    super();
  }
  parse(value: unknown, path: Path, ctx: ParseContext): string | undefined {
    if (typeof value !== "string") {
      ctx.issues.push({ path: [...path], message: `must be a string, not ${typeName(value)}` });
      return undefined;
    }
    const o = this.opts;
    if (o.minLength !== undefined && value.length < o.minLength) {
      ctx.issues.push({ path: [...path], message: o.minLength === 1 ? "must not be empty" : `must be at least ${o.minLength} characters` });
      return undefined;
    }
    if (o.maxLength !== undefined && value.length > o.maxLength) {
      ctx.issues.push({ path: [...path], message: `must be at most ${o.maxLength} characters` });
      return undefined;
    }
    if (o.pattern && !o.pattern.test(value)) {
      ctx.issues.push({ path: [...path], message: `${JSON.stringify(value)} is not ${o.patternHint ?? `matching ${o.pattern}`}` });
      return undefined;
    }
    const problem = o.check?.(value);
    if (problem) {
      ctx.issues.push({ path: [...path], message: problem });
      return undefined;
    }
    return o.normalize ? o.normalize(value) : value;
  }
  jsonSchema(): JsonSchema {
    const s: JsonSchema = { type: "string" };
    if (this.opts.pattern) s.pattern = this.opts.pattern.source;
    if (this.opts.minLength !== undefined) s.minLength = this.opts.minLength;
    if (this.opts.maxLength !== undefined) s.maxLength = this.opts.maxLength;
    if (this.opts.format) s.format = this.opts.format;
    return this.withDescription(s);
  }
}

/** A number within optional bounds; `integer` refuses fractions (IntSchema). */
export class NumberSchema extends Schema<number> {
  constructor(private readonly opts: { min?: number; max?: number; integer?: boolean } = {}) {
    super();
  }
  parse(value: unknown, path: Path, ctx: ParseContext): number | undefined {
    const { min, max, integer } = this.opts;
    if (typeof value !== "number" || !(integer ? Number.isInteger(value) : Number.isFinite(value))) {
      const shown = typeof value === "number" ? value : typeName(value);
      ctx.issues.push({ path: [...path], message: integer ? `must be an integer, not ${shown}` : `must be a number, not ${shown}` });
      return undefined;
    }
    if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
      ctx.issues.push({ path: [...path], message: `${value} is out of range ${min ?? "-∞"}..${max ?? "∞"}` });
      return undefined;
    }
    return value;
  }
  jsonSchema(): JsonSchema {
    const s: JsonSchema = { type: this.opts.integer ? "integer" : "number" };
    if (this.opts.min !== undefined) s.minimum = this.opts.min;
    if (this.opts.max !== undefined) s.maximum = this.opts.max;
    return this.withDescription(s);
  }
}

export class IntSchema extends NumberSchema {
  constructor(opts: { min?: number; max?: number } = {}) {
    super({ ...opts, integer: true });
  }
}

export class BoolSchema extends Schema<boolean> {
  parse(value: unknown, path: Path, ctx: ParseContext): boolean | undefined {
    if (typeof value !== "boolean") {
      ctx.issues.push({ path: [...path], message: `must be true or false, not ${JSON.stringify(value)}` });
      return undefined;
    }
    return value;
  }
  jsonSchema(): JsonSchema {
    return this.withDescription({ type: "boolean" });
  }
}

export class EnumSchema<E extends string> extends Schema<E> {
  constructor(readonly values: readonly E[]) {
    super();
  }
  parse(value: unknown, path: Path, ctx: ParseContext): E | undefined {
    if (typeof value === "string" && (this.values as readonly string[]).includes(value)) return value as E;
    const near = typeof value === "string" ? nearest(value, this.values) : undefined;
    ctx.issues.push({
      path: [...path],
      message: `${JSON.stringify(value)} is not one of ${this.values.join(", ")}`,
      ...(near ? { hint: `did you mean ${JSON.stringify(near)}?` } : {}),
    });
    return undefined;
  }
  jsonSchema(): JsonSchema {
    return this.withDescription({ type: "string", enum: [...this.values] });
  }
}

export class RefSchema extends Schema<string> {
  private readonly name = new StringSchema({ pattern: NAME_PATTERN, patternHint: "a resource name" });
  constructor(readonly kinds: readonly string[]) {
    super();
  }
  parse(value: unknown, path: Path, ctx: ParseContext): string | undefined {
    const v = this.name.parse(value, path, ctx);
    if (v !== undefined) ctx.refs.push({ path: [...path], name: v, kinds: this.kinds });
    return v;
  }
  jsonSchema(): JsonSchema {
    // Keep the field's own description (describe()) and say what it names.
    const names = `name of ${kindPhrase(this.kinds)} resource`;
    return { type: "string", pattern: NAME_PATTERN.source, description: this.description ? `${this.description} (${names})` : names };
  }
}

export class ArraySchema<T> extends Schema<T[]> {
  constructor(
    private readonly item: Schema<T>,
    private readonly opts: { minItems?: number; maxItems?: number; unique?: boolean } = {},
  ) {
    super();
  }
  parse(value: unknown, path: Path, ctx: ParseContext): T[] | undefined {
    if (!Array.isArray(value)) {
      ctx.issues.push({ path: [...path], message: `must be a list, not ${typeName(value)}` });
      return undefined;
    }
    if (this.opts.minItems !== undefined && value.length < this.opts.minItems) {
      ctx.issues.push({ path: [...path], message: `needs at least ${this.opts.minItems} item${this.opts.minItems === 1 ? "" : "s"}` });
    }
    if (this.opts.maxItems !== undefined && value.length > this.opts.maxItems) {
      ctx.issues.push({ path: [...path], message: `takes at most ${this.opts.maxItems} items` });
    }
    const out: T[] = [];
    let ok = true;
    value.forEach((v, i) => {
      path.push(i);
      const parsed = this.item.parse(v, path, ctx);
      path.pop();
      if (parsed === undefined) ok = false;
      else out.push(parsed);
    });
    if (ok && this.opts.unique) {
      const seen = new Map<string, number>();
      out.forEach((v, i) => {
        const key = JSON.stringify(v);
        const first = seen.get(key);
        if (first !== undefined) ctx.issues.push({ path: [...path, i], message: `duplicates item ${first}` });
        else seen.set(key, i);
      });
    }
    return ok ? out : undefined;
  }
  jsonSchema(): JsonSchema {
    const s: JsonSchema = { type: "array", items: this.item.jsonSchema() };
    if (this.opts.minItems !== undefined) s.minItems = this.opts.minItems;
    if (this.opts.maxItems !== undefined) s.maxItems = this.opts.maxItems;
    if (this.opts.unique) s.uniqueItems = true;
    return this.withDescription(s);
  }
}

/** A field of an object: optional, or with a default that fills it in. */
export class Field<T, Opt extends boolean> {
  constructor(
    readonly schema: Schema<T>,
    readonly isOptional: Opt,
    readonly defaultValue?: T,
  ) {}
}

type AnyField = Schema<unknown> | Field<unknown, boolean>;
export type Shape = Record<string, AnyField>;

type FieldType<F> = F extends Field<infer T, boolean> ? T : F extends Schema<infer T> ? T : never;
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends Field<unknown, true> ? K : never }[keyof S];
type RequiredKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>;
export type ObjectType<S extends Shape> = { [K in RequiredKeys<S>]: FieldType<S[K]> } & {
  [K in OptionalKeys<S>]?: FieldType<S[K]>;
};
type Simplify<T> = { [K in keyof T]: T[K] } & {};

export interface ObjectOptions {
  /**
   * Other names a field may be written with (the original API's spelling of a field routerd names
   * differently): alias → field. The value lands in the field; writing both is an error.
   */
  aliases?: Readonly<Record<string, string>>;
}

export class ObjectSchema<S extends Shape> extends Schema<Simplify<ObjectType<S>>> {
  private fieldList?: [string, Field<unknown, boolean>][];
  /** field → its alias, for the lookup during parse. */
  private readonly aliasOf?: Record<string, string>;
  constructor(
    readonly shape: S,
    private readonly opts: ObjectOptions = {},
  ) {
    super();
    if (opts.aliases) this.aliasOf = Object.fromEntries(Object.entries(opts.aliases).map(([alias, field]) => [field, alias]));
  }
  /** The shape as fields, built once: parse runs for every resource of a 10,000-resource config. */
  private fields(): [string, Field<unknown, boolean>][] {
    return (this.fieldList ??= Object.entries(this.shape).map(([key, f]) => [key, f instanceof Field ? f : new Field(f, false)]));
  }
  parse(value: unknown, path: Path, ctx: ParseContext): Simplify<ObjectType<S>> | undefined {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      ctx.issues.push({ path: [...path], message: `must be a mapping, not ${typeName(value)}` });
      return undefined;
    }
    const input = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    let ok = true;
    for (const key in input) {
      if (!Object.hasOwn(this.shape, key)) {
        const target = this.opts.aliases?.[key];
        if (target !== undefined) {
          if (input[target] !== undefined && input[target] !== null) {
            ctx.issues.push({ path: [...path, key], atKey: true, message: `is another name for ${target}, which is set too`, hint: `keep one of ${target} and ${key}` });
            ok = false;
          }
          continue;
        }
        const known = Object.keys(this.shape);
        const near = nearest(key, known);
        ctx.issues.push({
          path: [...path, key],
          atKey: true,
          message: `unknown field ${JSON.stringify(key)}`,
          hint: near ? `did you mean ${JSON.stringify(near)}?` : `known fields: ${known.join(", ")}`,
        });
        ok = false;
      }
    }
    for (const [key, field] of this.fields()) {
      let v = input[key];
      let at = key;
      const alias = this.aliasOf?.[key];
      if ((v === undefined || v === null) && alias !== undefined && input[alias] !== undefined && input[alias] !== null) {
        v = input[alias];
        at = alias;
      }
      if (v === undefined || v === null) {
        const d = field.defaultValue;
        if (d !== undefined) out[key] = typeof d === "object" ? structuredClone(d) : d;
        else if (!field.isOptional) {
          ctx.issues.push({ path: [...path, key], message: `is required` });
          ok = false;
        }
        continue;
      }
      path.push(at);
      const parsed = field.schema.parse(v, path, ctx);
      path.pop();
      if (parsed === undefined) ok = false;
      else out[key] = parsed;
    }
    return ok ? (out as Simplify<ObjectType<S>>) : undefined;
  }
  jsonSchema(): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [key, f] of Object.entries(this.shape)) {
      const field = f instanceof Field ? f : new Field(f, false);
      const s = field.schema.jsonSchema();
      properties[key] = field.defaultValue !== undefined ? { ...s, default: field.defaultValue } : s;
      if (!field.isOptional && field.defaultValue === undefined) required.push(key);
    }
    for (const [alias, target] of Object.entries(this.opts.aliases ?? {})) {
      const { default: _d, description, ...s } = properties[target]!;
      properties[alias] = { ...s, description: `the original API's name for ${target}${description ? ` (${String(description)})` : ""}` };
    }
    const s: JsonSchema = { type: "object", properties, additionalProperties: false };
    if (required.length) s.required = required;
    return this.withDescription(s);
  }
}

/** A mapping with free keys (sysctl overrides). */
export class MapSchema<T> extends Schema<Record<string, T>> {
  constructor(
    private readonly key: StringSchema,
    private readonly value: Schema<T>,
  ) {
    super();
  }
  parse(value: unknown, path: Path, ctx: ParseContext): Record<string, T> | undefined {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      ctx.issues.push({ path: [...path], message: `must be a mapping, not ${typeName(value)}` });
      return undefined;
    }
    const out: Record<string, T> = {};
    let ok = true;
    for (const [k, v] of Object.entries(value)) {
      path.push(k);
      const key = this.key.parse(k, path, ctx);
      const parsed = this.value.parse(v, path, ctx);
      path.pop();
      if (key === undefined || parsed === undefined) ok = false;
      else out[key] = parsed;
    }
    return ok ? out : undefined;
  }
  jsonSchema(): JsonSchema {
    return this.withDescription({ type: "object", additionalProperties: this.value.jsonSchema() });
  }
}

/** First alternative that parses without issues wins; otherwise the message lists what was expected. */
export class UnionSchema<T> extends Schema<T> {
  constructor(
    private readonly options: Schema<T>[],
    private readonly expected: string,
  ) {
    super();
  }
  parse(value: unknown, path: Path, ctx: ParseContext): T | undefined {
    for (const o of this.options) {
      const trial: ParseContext = { issues: [], refs: [] };
      const v = o.parse(value, path, trial);
      if (v !== undefined && trial.issues.length === 0) {
        ctx.refs.push(...trial.refs);
        if (trial.sources) (ctx.sources ??= []).push(...trial.sources);
        return v;
      }
    }
    ctx.issues.push({ path: [...path], message: `must be ${this.expected}` });
    return undefined;
  }
  jsonSchema(): JsonSchema {
    return this.withDescription({ anyOf: this.options.map((o) => o.jsonSchema()) });
  }
}

/** A schema with one more check, whose message says what to write instead (a value routerd refuses). */
export class CheckedSchema<T> extends Schema<T> {
  constructor(
    private readonly inner: Schema<T>,
    private readonly check: (v: T) => { message: string; hint?: string } | undefined,
  ) {
    super();
  }
  parse(value: unknown, path: Path, ctx: ParseContext): T | undefined {
    const v = this.inner.parse(value, path, ctx);
    if (v === undefined) return undefined;
    const problem = this.check(v);
    if (!problem) return v;
    ctx.issues.push({ path: [...path], message: problem.message, ...(problem.hint ? { hint: problem.hint } : {}) });
    return undefined;
  }
  jsonSchema(): JsonSchema {
    const s = this.inner.jsonSchema();
    return this.description ? { ...s, description: this.description } : s;
  }
}

/** A field of the original API routerd deliberately does not take: any value is refused with what to write instead. */
export class RefusedSchema extends Schema<never> {
  constructor(
    private readonly message: string,
    private readonly hint: string,
  ) {
    super();
  }
  parse(_value: unknown, path: Path, ctx: ParseContext): never | undefined {
    ctx.issues.push({ path: [...path], message: this.message, hint: this.hint });
    return undefined;
  }
  jsonSchema(): JsonSchema {
    return { description: `not supported: ${this.message}; ${this.hint}` };
  }
}

/** Anything; the caller validates it further (resources inside the Router document). */
export class AnySchema extends Schema<unknown> {
  parse(value: unknown): unknown {
    return value;
  }
  jsonSchema(): JsonSchema {
    return this.withDescription({});
  }
}

/** A schema defined later (recursive predicates). */
export class LazySchema<T> extends Schema<T> {
  constructor(
    private readonly get: () => Schema<T>,
    private readonly refName: string,
  ) {
    super();
  }
  parse(value: unknown, path: Path, ctx: ParseContext): T | undefined {
    return this.get().parse(value, path, ctx);
  }
  jsonSchema(): JsonSchema {
    return { $ref: `#/$defs/${this.refName}` };
  }
}

export const NAME_PATTERN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** "an Interface", "a FirewallZone or IPAddressSet": kinds with their article, for messages. */
export function kindPhrase(kinds: readonly string[]): string {
  const list = kinds.join(" or ");
  return `${/^[AEIOU]/.test(list) ? "an" : "a"} ${list}`;
}

export const t = {
  string: (opts?: ConstructorParameters<typeof StringSchema>[0]) => new StringSchema(opts),
  int: (opts?: { min?: number; max?: number }) => new IntSchema(opts),
  number: (opts?: { min?: number; max?: number }) => new NumberSchema(opts),
  bool: () => new BoolSchema(),
  enum: <E extends string>(...values: E[]) => new EnumSchema<E>(values),
  ref: (...kinds: string[]) => new RefSchema(kinds),
  /** A field naming an interface: any kind whose definition provides an ifname (Interface, tunnels, ...). */
  interfaceRef: () => new RefSchema(INTERFACE_KINDS),
  array: <T>(item: Schema<T>, opts?: { minItems?: number; maxItems?: number; unique?: boolean }) => new ArraySchema(item, opts),
  object: <S extends Shape>(shape: S, opts?: ObjectOptions) => new ObjectSchema(shape, opts),
  map: <T>(key: StringSchema, value: Schema<T>) => new MapSchema(key, value),
  union: <T>(expected: string, ...options: Schema<T>[]) => new UnionSchema<T>(options, expected),
  any: () => new AnySchema(),
  /** `schema`, refusing values `check` objects to (with the message and what to write instead). */
  checked: <T>(schema: Schema<T>, check: (v: T) => { message: string; hint?: string } | undefined) => new CheckedSchema(schema, check),
  /** An original-API field routerd refuses, whatever its value. */
  refused: (message: string, hint: string) => t.optional(new RefusedSchema(message, hint)),
  lazy: <T>(refName: string, get: () => Schema<T>) => new LazySchema(get, refName),
  optional: <T>(schema: Schema<T>) => new Field<T, true>(schema, true),
  withDefault: <T>(schema: Schema<T>, value: T) => new Field<T, false>(schema, false, value),
};

/** The closest candidate within a small edit distance, for "did you mean" hints. */
export function nearest(input: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDist = Infinity;
  for (const c of candidates) {
    const d = editDistance(input.toLowerCase(), c.toLowerCase());
    if (d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  return best !== undefined && bestDist <= Math.max(2, Math.floor(input.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}
