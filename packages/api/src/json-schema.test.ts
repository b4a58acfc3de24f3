// The JSON Schema editors use must agree with the loader: every example and fixture is valid against it,
// invalid documents are rejected by both, and the committed docs/ files match what the generators write.
import { isIPv4, isIPv6 } from "node:net";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { teardownRegistry } from "@routerd/resource";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { routerJsonSchema, SCHEMA_ID } from "./json-schema.js";
import { KINDS } from "./kinds/index.js";
import { loadConfig } from "./load.js";
import * as api from "./index.js";
// The generators' pure renderers (plain .mjs scripts at the repository root).
import { renderKindsDoc } from "../../../scripts/gen-docs.mjs";
import { renderSchema } from "../../../scripts/gen-schema.mjs";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
type Json = Record<string, unknown>;

// ---- a validator for the subset of JSON Schema 2020-12 the generator emits (no ajv needed) ----

const IGNORED = new Set(["$schema", "$id", "$defs", "title", "description", "default"]);
const KEYWORDS = new Set([
  ...IGNORED,
  ...["$ref", "const", "enum", "type", "properties", "required", "additionalProperties", "pattern", "minLength", "maxLength"],
  ...["minimum", "maximum", "format", "items", "minItems", "maxItems", "uniqueItems", "anyOf", "oneOf"],
]);

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function validate(root: Json, schema: Json, value: unknown, path = ""): string[] {
  const unknown = Object.keys(schema).filter((k) => !KEYWORDS.has(k));
  if (unknown.length) throw new Error(`validator does not implement ${unknown.join(", ")} (at ${path || "/"})`);
  const errs: string[] = [];
  const fail = (m: string) => errs.push(`${path || "/"}: ${m}`);
  if (typeof schema.$ref === "string") {
    const m = /^#\/\$defs\/(.+)$/.exec(schema.$ref);
    if (!m) throw new Error(`unsupported $ref ${schema.$ref}`);
    errs.push(...validate(root, (root.$defs as Record<string, Json>)[m[1]!]!, value, path));
  }
  if ("const" in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) fail(`must be ${JSON.stringify(schema.const)}`);
  if (schema.enum && !(schema.enum as unknown[]).includes(value)) fail(`must be one of ${JSON.stringify(schema.enum)}`);
  if (schema.type) {
    const types = [schema.type].flat() as string[];
    const t = typeOf(value);
    if (!types.includes(t) && !(t === "integer" && types.includes("number"))) {
      fail(`must be ${types.join(" or ")}, not ${t}`);
      return errs;
    }
  }
  if (typeof value === "string") {
    if (schema.pattern && !new RegExp(schema.pattern as string, "u").test(value)) fail(`does not match ${schema.pattern}`);
    if (schema.minLength !== undefined && value.length < (schema.minLength as number)) fail("too short");
    if (schema.maxLength !== undefined && value.length > (schema.maxLength as number)) fail("too long");
    if (schema.format === "ipv4" && !isIPv4(value)) fail("not an ipv4 address");
    if (schema.format === "ipv6" && !isIPv6(value)) fail("not an ipv6 address");
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < (schema.minimum as number)) fail(`below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > (schema.maximum as number)) fail(`above ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < (schema.minItems as number)) fail("too few items");
    if (schema.maxItems !== undefined && value.length > (schema.maxItems as number)) fail("too many items");
    if (schema.uniqueItems && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) fail("items are not unique");
    if (schema.items) value.forEach((v, i) => errs.push(...validate(root, schema.items as Json, v, `${path}/${i}`)));
  }
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Json>;
    for (const r of (schema.required ?? []) as string[]) if (!(r in obj)) fail(`${r} is required`);
    for (const [k, v] of Object.entries(obj)) {
      if (props[k]) errs.push(...validate(root, props[k]!, v, `${path}/${k}`));
      else if (schema.additionalProperties === false) fail(`${k} is not allowed`);
      else if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
        errs.push(...validate(root, schema.additionalProperties as Json, v, `${path}/${k}`));
      }
    }
  }
  if (schema.anyOf && !(schema.anyOf as Json[]).some((s) => validate(root, s, value, path).length === 0)) fail("matches no alternative of anyOf");
  if (schema.oneOf) {
    const matches = (schema.oneOf as Json[]).filter((s) => validate(root, s, value, path).length === 0).length;
    if (matches !== 1) fail(`matches ${matches} alternatives of oneOf, not exactly one`);
  }
  return errs;
}

const schema = routerJsonSchema() as Json;
const EXAMPLES = join(ROOT, "examples");
const exampleFiles = readdirSync(EXAMPLES).filter((f) => f.endsWith(".yaml") || f.endsWith(".yml"));
const fixtures = [...exampleFiles.map((f) => join(EXAMPLES, f)), fileURLToPath(new URL("./testdata/all-kinds.yaml", import.meta.url))];

describe("router JSON Schema", () => {
  it("is a 2020-12 schema with one alternative per kind", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.$id).toBe(SCHEMA_ID);
    const alternatives = (((schema.properties as Json).spec as Json).properties as Json).resources as Json;
    expect(((alternatives.items as Json).oneOf as Json[]).map((s) => s.title)).toEqual(KINDS.map((k) => k.kind));
  });

  it.each(KINDS.map((k) => [k.kind, k] as const))("%s: `when` is in its spec schema exactly when it supports when", (_kind, k) => {
    const spec = k.spec.jsonSchema() as Json;
    const alt = (((((schema.properties as Json).spec as Json).properties as Json).resources as Json).items as Json).oneOf as Json[];
    const props = ((alt.find((a) => a.title === k.kind)!.properties as Json).spec as Json).properties as Json;
    expect("when" in props).toBe(k.supportsWhen);
    expect(Object.keys(props).filter((p) => p !== "when")).toEqual(Object.keys((spec.properties ?? {}) as Json));
  });

  it.each(fixtures.map((f) => [f.slice(ROOT.length), f]))("%s is valid against the schema", (_rel, file) => {
    expect(validate(schema, schema, parse(readFileSync(file, "utf8")))).toEqual([]);
  });

  const HEAD = "apiVersion: routerd.net/v1alpha1\nkind: Router\nmetadata: { name: t }\nspec:\n  resources:\n";
  const one = (kind: string, apiVersion: string, spec: string) => `${HEAD}    - { apiVersion: ${apiVersion}, kind: ${kind}, metadata: { name: x }, spec: ${spec} }\n`;
  it.each([
    ["an unknown field", one("Interface", "net.routerd.net/v1alpha1", "{ ifnam: eth0 }")],
    ["a wrong apiVersion group", one("Interface", "firewall.routerd.net/v1alpha1", "{}")],
    ["an unknown kind", one("Interfaces", "net.routerd.net/v1alpha1", "{}")],
    ["a missing required field", one("IPv4StaticAddress", "net.routerd.net/v1alpha1", "{ interface: x }")],
    ["a bad enum value", one("NAT44Rule", "net.routerd.net/v1alpha1", "{ egressInterface: x, type: dnat }")],
    ["an out-of-range integer", one("Interface", "net.routerd.net/v1alpha1", "{ mtu: 70000 }")],
    ["a bad resource name", one("Interface", "net.routerd.net/v1alpha1", "{}").replace("name: x", "name: X_1")],
    ["when on a kind without when", one("FirewallPolicy", "firewall.routerd.net/v1alpha1", "{ when: { resource: Interface/x } }")],
    ["a malformed when", one("IPv4Route", "net.routerd.net/v1alpha1", "{ destination: default, gateway: 192.0.2.1, when: { resource: x } }")],
    ["a wrong Router apiVersion", HEAD.replace("routerd.net/v1alpha1", "routerd.net/v1") + "    []\n"],
  ])("rejects %s, as the loader does", (_label, text) => {
    expect(validate(schema, schema, parse(text)).length).toBeGreaterThan(0);
    expect(loadConfig(text, "t.yaml").config).toBeUndefined();
  });
});

describe("generated files are up to date", () => {
  it("docs/router.schema.json (regenerate: node scripts/gen-schema.mjs)", () => {
    const committed = readFileSync(join(ROOT, "docs", "router.schema.json"), "utf8");
    expect(committed, "docs/router.schema.json is stale: run `node scripts/gen-schema.mjs`").toBe(renderSchema(api));
  });

  it("docs/reference/kinds.md (regenerate: node scripts/gen-docs.mjs)", () => {
    const committed = readFileSync(join(ROOT, "docs", "reference", "kinds.md"), "utf8");
    const fresh = renderKindsDoc({ KINDS, routerJsonSchema, teardownRegistry });
    expect(committed, "docs/reference/kinds.md is stale: run `node scripts/gen-docs.mjs`").toBe(fresh);
  });

  it("the kinds reference documents every kind and every teardown spec", () => {
    const doc = renderKindsDoc({ KINDS, routerJsonSchema, teardownRegistry });
    for (const k of KINDS) {
      expect(doc).toContain(`## ${k.kind}\n`);
      expect(doc).toContain(`- apiVersion: \`${k.apiVersion}\``);
    }
    for (const s of teardownRegistry.list()) expect(doc).toMatch(new RegExp(`\\| ${s.order} \\| \`${s.kind.replace(/\./g, "\\.")}\` \\| ${s.policy} \\|`));
    expect(doc).toContain("| `candidates[].mark` |");
    expect(doc).toContain("| `listen.port` |");
  });
});
