// The fast subset parser must give exactly what the yaml library gives, and step aside for anything else.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { fastParseYaml } from "./fast-yaml.js";

const REPO = new URL("../../..", import.meta.url).pathname;
const files = [
  ...readdirSync(join(REPO, "examples")).map((f) => join(REPO, "examples", f)),
  join(REPO, "packages/api/src/testdata/all-kinds.yaml"),
  ...readdirSync(join(REPO, "packages/render/src/testdata")).map((d) => join(REPO, "packages/render/src/testdata", d, "router.yaml")),
];

describe("fastParseYaml", () => {
  it.each(files)("parses %s exactly as the yaml library does", (file) => {
    const text = readFileSync(file, "utf8");
    const fast = fastParseYaml(text);
    expect(fast).toBeDefined();
    expect(fast!.value).toEqual(parse(text));
  });

  it.each([
    ["scalars of the core schema", "a: 1\nb: -2\nc: 0x1ff\nd: 0o17\ne: 1.5\nf: true\ng: null\nh: ~\ni: hello world\nj: '10.0.0.0/8'\nk: \"x\\ty\"\nl: 1e3\nm: .inf\n"],
    ["flow collections", "a: { x: 1, y: [1, 2, { z: w }], q: 'it''s' }\nb: []\nc: {}\n"],
    ["sequences of mappings", "list:\n  - name: a\n    value: 1\n  - name: b\n    nested:\n      - 1\n      - 2\n"],
    ["a sequence at the key's indentation", "list:\n- a\n- b\nnext: 1\n"],
    ["comments everywhere", "# top\na: 1 # trailing\n# middle\nb: 'has # inside'\nc: x#y\n"],
    ["empty values", "a:\nb:\n  c:\n"],
    ["quoted keys and colons in values", "'quoted key': v\nurl: http://x:80/y\ntime: 12:30\n"],
    ["a document marker", "---\na: 1\n"],
  ])("%s", (_name, text) => {
    expect(fastParseYaml(text)?.value).toEqual(parse(text));
  });

  it.each([
    ["anchors", "a: &x 1\nb: *x\n"],
    ["block scalars", "a: |\n  text\n"],
    ["tags", "a: !!str 1\n"],
    ["multi-line flow", "a: { x: 1,\n  y: 2 }\n"],
    ["duplicate keys", "a: 1\na: 2\n"],
    ["several documents", "a: 1\n---\nb: 2\n"],
    ["tab indentation", "a:\n\tb: 1\n"],
    ["multi-line plain scalars", "a: one\n  two\n"],
  ])("steps aside for %s", (_name, text) => {
    expect(fastParseYaml(text)).toBeUndefined();
  });

  it("records where each mapping in a sequence starts", () => {
    const r = fastParseYaml("spec:\n  resources:\n    - kind: A\n    - kind: B\n")!;
    const items = (r.value as { spec: { resources: object[] } }).spec.resources;
    expect(items.map((i) => r.positions.get(i))).toEqual([{ line: 3, col: 7 }, { line: 4, col: 7 }]);
  });
});
