// Small helpers for writing nftables text deterministically.
import { createHash } from "node:crypto";

export const quote = (s: string) => `"${s.replace(/["\\]/g, "")}"`;

/** `{ a, b }` for several values, the bare value for one. */
export function anonSet(values: readonly string[]): string {
  return values.length === 1 ? values[0]! : `{ ${values.join(", ")} }`;
}

export function ifnameMatch(direction: "iifname" | "oifname", ifnames: readonly string[], negate = false): string {
  const v = anonSet([...ifnames].sort().map(quote));
  return `${direction} ${negate ? "!= " : ""}${v}`;
}

export class Block {
  private readonly lines: string[] = [];
  constructor(private readonly indent = "\t") {}
  line(text: string): this {
    this.lines.push(this.indent + text);
    return this;
  }
  comment(text: string): this {
    return this.line(`# ${text.replace(/\n/g, " ")}`);
  }
  blank(): this {
    this.lines.push("");
    return this;
  }
  get size(): number {
    return this.lines.length;
  }
  toString(): string {
    return this.lines.join("\n");
  }
}

/** A set of addresses: its elements (an IPAddressSet), or filled by rules (dynamic: a connection limit's meter). */
export type NftSetDef = { name: string; elements: readonly string[]; dynamic?: undefined } | { name: string; dynamic: true; elements?: undefined };

export function renderSet(set: NftSetDef): string[] {
  if (set.dynamic) return [`set ${set.name} {`, "\ttype ipv4_addr", "\tsize 65535", "\tflags dynamic", "}"];
  return [`set ${set.name} {`, "\ttype ipv4_addr", "\tflags interval", `\telements = { ${[...set.elements].sort().join(", ")} }`, "}"];
}

export interface Chain {
  name: string;
  /** e.g. `type nat hook prerouting priority dstnat; policy accept;` (base chains only) */
  hook?: string;
  rules: string[];
}

/** A whole table, with a digest of its body in the table comment so observers can compare cheaply. */
export function renderTable(family: string, table: string, sets: readonly NftSetDef[], chains: readonly Chain[]): { content: string; digest: string } {
  const body: string[] = [];
  for (const s of sets) body.push(...renderSet(s), "");
  for (const c of chains) {
    body.push(`chain ${c.name} {`);
    if (c.hook) body.push(`\t${c.hook}`);
    for (const r of c.rules) body.push(r.startsWith("#") ? `\t${r}` : `\t${r}`);
    body.push("}", "");
  }
  while (body.at(-1) === "") body.pop();
  const digest = createHash("sha256").update(`${family} ${table}\n${body.join("\n")}`).digest("hex").slice(0, 32);
  const content = [
    `table ${family} ${table} {`,
    `\tcomment ${quote(`routerd:sha256=${digest}`)}`,
    ...body.map((l) => (l ? `\t${l}` : "")),
    "}",
    "",
  ].join("\n");
  return { content, digest };
}
