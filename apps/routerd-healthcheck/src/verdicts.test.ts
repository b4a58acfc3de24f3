import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { VerdictFiles } from "./verdicts.js";

describe("verdict files", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it("one file per probe with its state, replaced on change, removed with the probe", () => {
    const dir = mkdtempSync(join(tmpdir(), "verdicts-"));
    dirs.push(dir);
    const v = new VerdictFiles(join(dir, "verdicts"));
    v.write("up", "Unknown");
    v.write("up", "Healthy");
    v.write("dns", "Unhealthy");
    expect(readFileSync(join(dir, "verdicts", "up"), "utf8")).toBe("Healthy\n");
    expect(readFileSync(join(dir, "verdicts", "dns"), "utf8")).toBe("Unhealthy\n");
    v.remove("dns");
    expect(readdirSync(join(dir, "verdicts"))).toEqual(["up"]);
  });
});
