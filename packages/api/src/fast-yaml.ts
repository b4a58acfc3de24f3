// A fast parser for the plain subset of YAML that router configs are written in: block mappings and
// sequences, one-line flow collections, plain and quoted scalars, comments. The `yaml` library needs about
// 2 s and 150 MiB for a 10,000-resource config; this needs a few tens of milliseconds. Anything outside the
// subset (anchors, tags, block scalars, multi-line flow or plain scalars, tabs, duplicate keys, several
// documents) returns undefined and the caller uses the `yaml` library, which also gives error positions.
// Scalars resolve as YAML 1.2's core schema does, like the `yaml` library's default.

export interface FastParse {
  value: unknown;
  /** 1-based line and column where each block sequence item that is a collection starts (as the yaml library reports it). */
  positions: Map<object, { line: number; col: number }>;
}

class Unsupported extends Error {}

interface Line {
  indent: number;
  text: string; // without indentation and trailing comment
  no: number;
  /** splitKey(text), computed on first use (null: not a mapping entry). */
  kv?: [string, string] | null;
}

const keyOf = (line: Line): [string, string] | undefined => (line.kv === undefined ? (line.kv = splitKey(line.text) ?? null) : line.kv) ?? undefined;

const INT = /^[-+]?[0-9]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const OCT = /^0o[0-7]+$/;
const FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

function plainScalar(s: string): unknown {
  const c = s.charCodeAt(0);
  // Most scalars are names and addresses: decide by the first character before trying any pattern.
  const maybeNumber = (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46; // 0-9 + - .
  const maybeKeyword = c === 126 || c === 110 || c === 78 || c === 116 || c === 84 || c === 102 || c === 70; // ~ n N t T f F
  if (!maybeNumber && !maybeKeyword && !INDICATOR.test(s)) return s === "" ? null : s;
  if (s === "" || s === "~" || s === "null" || s === "Null" || s === "NULL") return null;
  if (s === "true" || s === "True" || s === "TRUE") return true;
  if (s === "false" || s === "False" || s === "FALSE") return false;
  if (maybeNumber) {
    if (INT.test(s)) return Number.parseInt(s, 10);
    if (HEX.test(s)) return Number.parseInt(s.slice(2), 16);
    if (OCT.test(s)) return Number.parseInt(s.slice(2), 8);
    if (FLOAT.test(s)) return Number.parseFloat(s);
    if (/^[-+]?\.(inf|Inf|INF)$/.test(s)) return s.startsWith("-") ? -Infinity : Infinity;
    if (/^\.(nan|NaN|NAN)$/.test(s)) return Number.NaN;
  }
  // Indicators that start something this parser does not handle.
  if (INDICATOR.test(s) || s.startsWith("- ") || s === "-") throw new Unsupported();
  return s;
}

const INDICATOR = /^[&*!|>%@`?]/;
const KEY_START_INVALID = /[\s#{}[\],"']/;

/** Strips a trailing comment (" #") outside quotes and flow-collection strings. */
function stripComment(s: string): string {
  let quote: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      if (i === 0 || /[\s[{,:]/.test(s[i - 1]!)) quote = c;
    } else if (c === "#" && (i === 0 || s[i - 1] === " ")) return s.slice(0, i).trimEnd();
  }
  if (quote) throw new Unsupported();
  return s.trimEnd();
}

/** Reads a value that is complete on one line: flow collection, quoted or plain scalar. */
class InlineReader {
  i = 0;
  constructor(readonly s: string) {}

  readAll(): unknown {
    const v = this.value(false);
    this.ws();
    if (this.i !== this.s.length) throw new Unsupported();
    return v;
  }

  private ws(): void {
    while (this.s[this.i] === " ") this.i++;
  }

  value(inFlow: boolean): unknown {
    this.ws();
    const c = this.s[this.i];
    if (c === "{") return this.mapping();
    if (c === "[") return this.sequence();
    if (c === '"' || c === "'") return this.quoted(c);
    return plainScalar(this.plain(inFlow));
  }

  private plain(inFlow: boolean): string {
    const start = this.i;
    while (this.i < this.s.length) {
      const c = this.s[this.i]!;
      if (inFlow && (c === "," || c === "]" || c === "}")) break;
      if (c === ":" && (this.s[this.i + 1] === " " || this.s[this.i + 1] === undefined || (inFlow && /[,\]}]/.test(this.s[this.i + 1]!)))) break;
      this.i++;
    }
    const text = this.s.slice(start, this.i).trim();
    if (inFlow && /^[{[]/.test(text)) throw new Unsupported();
    return text;
  }

  private quoted(q: string): string {
    const start = ++this.i;
    let out = "";
    for (;;) {
      if (this.i >= this.s.length) throw new Unsupported();
      const c = this.s[this.i]!;
      if (q === "'" && c === "'") {
        if (this.s[this.i + 1] === "'") {
          out += "'";
          this.i += 2;
          continue;
        }
        this.i++;
        return out;
      }
      if (q === '"' && c === '"') {
        this.i++;
        try {
          return JSON.parse(`"${this.s.slice(start, this.i - 1)}"`) as string;
        } catch {
          throw new Unsupported(); // YAML-only escapes (\x, \0, ...) are left to the full parser
        }
      }
      if (q === '"' && c === "\\") this.i++;
      out += c;
      this.i++;
    }
  }

  private mapping(): Record<string, unknown> {
    this.i++;
    const out: Record<string, unknown> = {};
    this.ws();
    if (this.s[this.i] === "}") {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      const key = this.s[this.i] === '"' || this.s[this.i] === "'" ? this.quoted(this.s[this.i]!) : this.plain(true);
      this.ws();
      if (this.s[this.i] !== ":") throw new Unsupported();
      this.i++;
      if (Object.hasOwn(out, key) || key === "") throw new Unsupported();
      this.ws();
      out[key] = this.s[this.i] === "," || this.s[this.i] === "}" ? null : this.value(true);
      this.ws();
      const c = this.s[this.i++];
      if (c === "}") return out;
      if (c !== ",") throw new Unsupported();
    }
  }

  private sequence(): unknown[] {
    this.i++;
    const out: unknown[] = [];
    this.ws();
    if (this.s[this.i] === "]") {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(true));
      this.ws();
      const c = this.s[this.i++];
      if (c === "]") return out;
      if (c !== ",") throw new Unsupported();
    }
  }
}

const inline = (s: string) => new InlineReader(s).readAll();

/** `key: rest` → [key, rest] when the line is a mapping entry, else undefined. */
function splitKey(text: string): [string, string] | undefined {
  const q = text[0];
  if (q === '"' || q === "'") {
    const r = new InlineReader(text);
    const key = r.value(true) as string;
    const rest = text.slice(r.i);
    if (!rest.startsWith(":")) return undefined;
    return [key, rest.slice(1).trim()];
  }
  // A plain key: no leading indicator or space, no ":" inside; the first ":" ends it and is followed by a
  // space or the end of the line (so "http://x" is a scalar, not a key).
  if (KEY_START_INVALID.test(text[0] ?? " ")) return undefined;
  const colon = text.indexOf(":");
  if (colon < 1) return undefined;
  if (colon === text.length - 1) return [text.slice(0, colon).trimEnd(), ""];
  if (text.charCodeAt(colon + 1) !== 32) return undefined;
  return [text.slice(0, colon).trimEnd(), text.slice(colon + 2).trim()];
}

class BlockParser {
  private pos = 0;
  readonly positions = new Map<object, { line: number; col: number }>();
  constructor(private readonly lines: Line[]) {}

  parseDocument(): unknown {
    if (!this.lines.length) throw new Unsupported();
    const v = this.block(this.lines[0]!.indent);
    if (this.pos !== this.lines.length) throw new Unsupported();
    return v;
  }

  private block(indent: number): unknown {
    const first = this.lines[this.pos]!;
    if (first.indent !== indent) throw new Unsupported();
    if (first.text === "-" || first.text.startsWith("- ")) return this.sequence(indent);
    if (keyOf(first)) return this.mapping(indent);
    this.pos++;
    return inline(first.text);
  }

  /** The value after "key:" or "- ": inline, or a nested block on the following lines. */
  private valueAfter(rest: string, parentIndent: number): unknown {
    if (rest !== "") return inline(rest);
    const next = this.lines[this.pos];
    if (!next || next.indent <= parentIndent) {
      // A sequence may sit at the same indentation as its key ("key:\n- a").
      if (next && next.indent === parentIndent && (next.text === "-" || next.text.startsWith("- "))) return this.sequence(parentIndent);
      return null;
    }
    return this.block(next.indent);
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    while (this.pos < this.lines.length) {
      const line = this.lines[this.pos]!;
      if (line.indent < indent) break;
      if (line.indent > indent) throw new Unsupported();
      const kv = keyOf(line);
      if (!kv) break;
      const [key, rest] = kv;
      if (Object.hasOwn(out, key)) throw new Unsupported(); // duplicate keys: let the full parser report them
      this.pos++;
      out[key] = this.valueAfter(rest, indent);
    }
    return out;
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    while (this.pos < this.lines.length) {
      const line = this.lines[this.pos]!;
      if (line.indent !== indent || !(line.text === "-" || line.text.startsWith("- "))) break;
      const rest = line.text === "-" ? "" : line.text.slice(2).trimStart();
      const itemIndent = indent + (line.text.length - rest.length);
      const item: Line = { indent: itemIndent, text: rest, no: line.no };
      if (rest !== "" && keyOf(item)) {
        // "- key: value" starts a mapping whose further keys sit at itemIndent.
        this.lines[this.pos] = item;
        const m = this.mapping(itemIndent);
        this.positions.set(m, { line: line.no, col: itemIndent + 1 });
        out.push(m);
        continue;
      }
      this.pos++;
      // Where the item's value starts: after the dash, or on the next line for a nested block.
      const next = this.lines[this.pos];
      const at = rest !== "" || !next ? { line: line.no, col: itemIndent + 1 } : { line: next.no, col: next.indent + 1 };
      const v = this.valueAfter(rest, indent);
      if (v && typeof v === "object") this.positions.set(v, at);
      out.push(v);
    }
    return out;
  }
}

export function fastParseYaml(text: string): FastParse | undefined {
  try {
    const lines: Line[] = [];
    const raw = text.split("\n");
    let started = false;
    for (let n = 0; n < raw.length; n++) {
      let l = raw[n]!;
      if (l.charCodeAt(l.length - 1) === 13) l = l.slice(0, -1); // CRLF
      let indent = 0;
      while (l.charCodeAt(indent) === 32) indent++;
      if (l.charCodeAt(indent) === 9) throw new Unsupported(); // a tab in the indentation
      if (indent === l.length) continue;
      const body = indent ? l.slice(indent) : l;
      const c = body.charCodeAt(0);
      if (c === 35) continue; // "#"
      if (c === 45 || c === 46 || c === 37) {
        // "-", ".", "%": document markers and directives
        if (body === "---" && !started) {
          started = true;
          continue;
        }
        if (body.startsWith("---") || body.startsWith("...") || c === 37) throw new Unsupported();
      }
      started = true;
      const t = body.includes("#") || body.includes('"') || body.includes("'") ? stripComment(body) : body.trimEnd();
      if (t === "") continue;
      if (/^\s/.test(t)) throw new Unsupported(); // other whitespace in the indentation
      lines.push({ indent, text: t, no: n + 1 });
    }
    const parser = new BlockParser(lines);
    return { value: parser.parseDocument(), positions: parser.positions };
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  }
}
