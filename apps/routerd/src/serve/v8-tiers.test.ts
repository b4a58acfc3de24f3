// serve turns V8's baseline compiler off for itself (its code pages grew for hours with it: docs/performance.md,
// "Soak"). The choice logic is pure; the effect is measured in a real node process: the same functions, run the
// same number of times, leave less compiled code with the flags set at run time than without.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { SERVE_V8_FLAGS, applyServeV8Flags, serveV8Flags } from "./v8-tiers.js";

/** Runs 300 small functions 400 times each in a fresh node; code and metadata bytes added (V8's own count). */
function compiledBytes(flags: readonly string[]): number {
  const script = `
    const v8 = await import("node:v8");
    for (const f of ${JSON.stringify(flags)}) v8.setFlagsFromString(f);
    const src = Array.from({ length: 300 }, (_, i) => "export function f" + i + "(a) { let s = 0; for (let j = 0; j < 5; j++) s += (a * " + i + " + j) % 7; return s; }").join("\\n");
    const before = v8.getHeapCodeStatistics().code_and_metadata_size;
    const fns = Object.values(await import("data:text/javascript," + encodeURIComponent(src)));
    let x = 0;
    for (let r = 0; r < 400; r++) {
      for (const f of fns) x += f(r);
      if (r % 50 === 0) await new Promise((ok) => setTimeout(ok, 5));
    }
    await new Promise((ok) => setTimeout(ok, 200));
    process.stdout.write(String(v8.getHeapCodeStatistics().code_and_metadata_size - before));
  `;
  return Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } }));
}

describe("serve's V8 flags", () => {
  it("turns the baseline compiler off unless the operator chose otherwise", () => {
    expect(SERVE_V8_FLAGS).toContain("--no-sparkplug");
    expect(serveV8Flags([])).toEqual(["--no-sparkplug"]);
    expect(serveV8Flags(["--sparkplug"])).toEqual([]);
    expect(serveV8Flags(["--max-old-space-size=200", "--no-sparkplug"])).toEqual([]);
    expect(serveV8Flags(["--lite-mode", "--import=x.mjs"])).toEqual(["--no-sparkplug"]);
  });

  it("hands each flag to V8 once", () => {
    const set: string[] = [];
    const applied = applyServeV8Flags((f) => set.push(f));
    expect(set).toEqual(applied);
    expect(new Set(set).size).toBe(set.length);
  });

  it("leaves less compiled code for the same work in a real node process", () => {
    const withBaseline = compiledBytes([]);
    const withServeFlags = compiledBytes(SERVE_V8_FLAGS);
    expect(withBaseline).toBeGreaterThan(0);
    expect(withServeFlags).toBeLessThan(withBaseline / 2);
  }, 120_000);
});
