// `xxxFrom: {resource: Kind/name, field, optional}`: a spec value read from another resource's status
// (the original API's status-sourced values). The schema records each use; validation checks it against
// the source kind's provides table; the effective view resolves it into the field it names (`into`).
import { isIPv4, isIPv6 } from "node:net";
import { PHASE_FIELD, type ProvidedType } from "./provides.js";
import { ArraySchema, Schema, t, type JsonSchema, type ParseContext, type Path } from "./schema.js";

export const RESOURCE_ID = /^([A-Z][A-Za-z0-9]*)\/([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)$/;

export interface StatusSource {
  resource: string;
  field: string;
  optional: boolean;
}

/** A value format: which provided types it takes and how one value is checked and converted. */
interface ValueFormat {
  what: string;
  /** Provided types a single-valued field takes (a list gives its first value). */
  single: readonly ProvidedType[];
  convert(value: unknown): { value: unknown } | { problem: string };
}

const text = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : undefined);
/** An address with or without its prefix length: `192.0.2.1/24` gives `192.0.2.1`. */
const bare = (v: string) => v.split("/")[0]!;

function addressFormat(what: string, ok: (v: string) => boolean): ValueFormat {
  return {
    what,
    single: ["string", "stringList"],
    convert(value) {
      const s = text(value);
      const a = s === undefined ? undefined : bare(s);
      return a !== undefined && ok(a) ? { value: a } : { problem: `${JSON.stringify(value)} is not ${what}` };
    },
  };
}

/** The formats a `*From` field can target, by name (plain data, so a validated config can be cached as JSON). */
export const VALUE_FORMATS = {
  string: {
    what: "a string",
    single: ["string", "stringList", "int", "bool", "timestamp"],
    convert: (v: unknown) => (text(v) !== undefined && text(v) !== "" ? { value: text(v) } : { problem: `${JSON.stringify(v)} is not a string` }),
  },
  ipv4: addressFormat("an IPv4 address", isIPv4),
  ipv6: addressFormat("an IPv6 address", isIPv6),
  ip: addressFormat("an IP address", (v) => isIPv4(v) || isIPv6(v)),
  ipv4Cidr: {
    what: "an IPv4 address with prefix length",
    single: ["string", "stringList"],
    convert: (v: unknown) => {
      const s = text(v);
      return s && /^[0-9.]+\/\d{1,2}$/.test(s) && isIPv4(bare(s)) ? { value: s } : { problem: `${JSON.stringify(v)} is not an IPv4 address with prefix length` };
    },
  },
  ipv6Prefix: {
    what: "an IPv6 prefix",
    single: ["string", "stringList"],
    convert: (v: unknown) => {
      const s = text(v);
      return s && /^[0-9a-fA-F:.]+\/\d{1,3}$/.test(s) && isIPv6(bare(s)) ? { value: s } : { problem: `${JSON.stringify(v)} is not an IPv6 prefix` };
    },
  },
  hostname: {
    what: "a host name",
    single: ["string", "stringList"],
    convert: (v: unknown) => {
      const s = text(v);
      return s && /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(s) ? { value: s.replace(/\.$/, "") } : { problem: `${JSON.stringify(v)} is not a host name` };
    },
  },
  ifname: {
    what: "an interface name",
    single: ["string", "stringList"],
    convert: (v: unknown) => {
      const s = text(v);
      return s && /^[A-Za-z0-9_][A-Za-z0-9_.:@-]{0,14}$/.test(s) ? { value: s } : { problem: `${JSON.stringify(v)} is not an interface name` };
    },
  },
} satisfies Record<string, ValueFormat>;

export type ValueFormatName = keyof typeof VALUE_FORMATS;

/** One `*From` in a parsed resource: where it is, what it reads, and where the value goes. */
export interface SourceUse extends StatusSource {
  /** Path of the `*From` object, from the resource root (`spec`, ...), like refs. */
  path: Path;
  /** The sibling spec field the value fills in; undefined when the kind reads the source itself. */
  into?: string;
  format: ValueFormatName;
  /** Part of a list form: values (one, or all of a list) are added to the `into` list. */
  list: boolean;
  /** A `dependsOn` entry: no value is taken, the resource waits until the field is set (or equals). */
  dependency?: { equals?: string; notEmpty?: boolean };
}

export function valueFormat(name: ValueFormatName): ValueFormat {
  return VALUE_FORMATS[name];
}

/** Provided types a use can take: a list takes lists and single values; `phase` only fits plain strings. */
export function acceptedTypes(use: Pick<SourceUse, "format" | "list">): readonly ProvidedType[] {
  return use.list ? ["string", "stringList"] : VALUE_FORMATS[use.format].single;
}

export function phaseFits(use: Pick<SourceUse, "format">): boolean {
  return use.format === "string";
}

interface SourceOptions {
  format: ValueFormatName;
  /** The sibling field that receives the value. */
  into?: string;
}

const sourceObject = t.object({
  resource: t.string({ pattern: RESOURCE_ID, patternHint: "Kind/name, e.g. DHCPv4Client/wan" }).describe("the source resource as Kind/name"),
  field: t.optional(t.string({ pattern: /^[A-Za-z][A-Za-z0-9]*$/, patternHint: "a status field name" }).describe("the status field to read (default: phase)")),
  optional: t.optional(t.bool().describe("a missing value leaves the field unset instead of keeping the resource Pending")),
});

export class StatusSourceSchema extends Schema<StatusSource> {
  constructor(
    private readonly opts: SourceOptions,
    private readonly list: boolean,
  ) {
    super();
  }
  parse(value: unknown, path: Path, ctx: ParseContext): StatusSource | undefined {
    const v = sourceObject.parse(value, path, ctx);
    if (!v) return undefined;
    const source: StatusSource = { resource: v.resource, field: v.field ?? PHASE_FIELD, optional: v.optional ?? false };
    const use: SourceUse = { path: [...path], ...source, format: this.opts.format, list: this.list };
    if (this.opts.into !== undefined) use.into = this.opts.into;
    (ctx.sources ??= []).push(use);
    return source;
  }
  jsonSchema(): JsonSchema {
    const into = this.opts.into ? ` into ${this.opts.into}` : "";
    const s = sourceObject.jsonSchema();
    return { ...s, description: this.description ?? `reads ${VALUE_FORMATS[this.opts.format].what}${into} from another resource's status` };
  }
}

const dependencyObject = t.object({
  resource: t.string({ pattern: RESOURCE_ID, patternHint: "Kind/name, e.g. DHCPv6PrefixDelegation/wan-pd" }),
  field: t.optional(t.string({ pattern: /^[A-Za-z][A-Za-z0-9]*$/, patternHint: "a status field name" }).describe("the status field to check (default: phase)")),
  phase: t.optional(t.string({ minLength: 1 }).describe("shorthand for field: phase, equals: <phase>")),
  equals: t.optional(t.string().describe("the value the field must have")),
  notEmpty: t.optional(t.bool().describe("the field must have a value")),
  optional: t.optional(t.bool().describe("the resource may be missing from the config; a missing value does not block")),
});

/** One `dependsOn` entry: the resource stays Pending (keeping what it has) until the dependency holds. */
export class DependencySchema extends Schema<StatusSource> {
  parse(value: unknown, path: Path, ctx: ParseContext): StatusSource | undefined {
    const v = dependencyObject.parse(value, path, ctx);
    if (!v) return undefined;
    if (v.phase !== undefined && ((v.field !== undefined && v.field !== PHASE_FIELD) || v.equals !== undefined)) {
      ctx.issues.push({ path: [...path, "phase"], message: "phase is shorthand for field: phase with equals", hint: "write either phase, or field with equals" });
      return undefined;
    }
    const source: StatusSource = { resource: v.resource, field: v.field ?? PHASE_FIELD, optional: v.optional ?? false };
    const equals = v.phase ?? v.equals;
    const dependency = { ...(equals !== undefined ? { equals } : {}), ...(v.notEmpty ? { notEmpty: true } : {}) };
    (ctx.sources ??= []).push({ path: [...path], ...source, format: "string", list: false, dependency });
    return source;
  }
  jsonSchema(): JsonSchema {
    return { ...dependencyObject.jsonSchema(), description: "wait until another resource's status field holds" };
  }
}

/** `dependsOn: [{resource: Kind/name, phase: Bound}, ...]` (the original API's readiness conditions). */
export function dependsOn(): ArraySchema<StatusSource> {
  return new ArraySchema(new DependencySchema(), { minItems: 1 });
}

/** `xxxFrom: {resource, field, optional}`: one value. */
export function fromSource(opts: SourceOptions): StatusSourceSchema {
  return new StatusSourceSchema(opts, false);
}

/** `xxxFrom: [{resource, field, optional}, ...]`: values added to a list. */
export function fromSources(opts: SourceOptions): ArraySchema<StatusSource> {
  return new ArraySchema(new StatusSourceSchema(opts, true), { minItems: 1 });
}

