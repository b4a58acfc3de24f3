// A tiny strict reader for the daemon's JSON config: every problem is collected with its path; unknown
// fields are problems too (a silently ignored field on a router is an outage or a hole).

export type Problems = string[];

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export class Reader {
  constructor(
    readonly problems: Problems,
    readonly path: string,
  ) {}

  at(key: string | number): Reader {
    return new Reader(this.problems, typeof key === "number" ? `${this.path}[${key}]` : this.path ? `${this.path}.${key}` : key);
  }

  fail(message: string): undefined {
    this.problems.push(`${this.path || "config"}: ${message}`);
    return undefined;
  }

  /** An object with exactly these keys allowed; undefined (and a problem) otherwise. */
  object(value: unknown, allowed: readonly string[]): Record<string, unknown> | undefined {
    if (!isObject(value)) return this.fail("must be an object");
    for (const k of Object.keys(value)) if (!allowed.includes(k)) this.at(k).fail(`unknown field (expected one of ${allowed.join(", ")})`);
    return value;
  }

  list<T>(value: unknown, item: (r: Reader, v: unknown) => T | undefined, opts: { optional?: boolean } = {}): T[] {
    if (value === undefined && opts.optional) return [];
    if (!Array.isArray(value)) return this.fail("must be a list") ?? [];
    const out: T[] = [];
    value.forEach((v, i) => {
      const parsed = item(this.at(i), v);
      if (parsed !== undefined) out.push(parsed);
    });
    return out;
  }

  string(value: unknown, check?: (s: string) => string | undefined): string | undefined {
    if (typeof value !== "string") return this.fail("must be a string");
    const problem = check?.(value);
    return problem === undefined ? value : this.fail(problem);
  }

  int(value: unknown, min: number, max: number): number | undefined {
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) return this.fail(`must be an integer from ${min} to ${max}`);
    return value as number;
  }

  bool(value: unknown): boolean | undefined {
    return typeof value === "boolean" ? value : this.fail("must be true or false");
  }

  oneOf<T extends string>(value: unknown, values: readonly T[]): T | undefined {
    return typeof value === "string" && (values as readonly string[]).includes(value) ? (value as T) : this.fail(`must be one of ${values.join(", ")}`);
  }
}
