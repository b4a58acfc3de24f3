// Every example config in examples/ validates and points editors at the JSON Schema.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./load.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const EXAMPLES = join(ROOT, "examples");
const files = readdirSync(EXAMPLES)
  .filter((f) => /\.ya?ml$/.test(f))
  .map((f) => join(EXAMPLES, f));
const MODELINE = /^# yaml-language-server: \$schema=(\S+)$/;

describe("examples/", () => {
  it("has examples", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files.map((f) => [f.slice(ROOT.length), f]))("%s validates without errors or warnings", (_rel, file) => {
    const r = loadConfig(readFileSync(file, "utf8"), file);
    expect(r.issues).toEqual([]);
    expect(r.config!.resources.length).toBeGreaterThan(0);
  });

  it.each(files.map((f) => [f.slice(ROOT.length), f]))("%s starts with a yaml-language-server modeline naming docs/router.schema.json", (_rel, file) => {
    const first = readFileSync(file, "utf8").split("\n")[0]!;
    const m = MODELINE.exec(first);
    expect(m, `first line of ${file} is ${JSON.stringify(first)}`).not.toBeNull();
    const target = resolve(dirname(file), m![1]!);
    expect(target).toBe(join(ROOT, "docs", "router.schema.json"));
    expect(existsSync(target)).toBe(true);
  });
});
