// Every golden dnsmasq config (packages/render/src/dnsmasq/testdata) must be accepted by the real dnsmasq.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, sh } from "../lib/netns.js";

const TESTDATA = join(REPO, "packages/render/src/dnsmasq/testdata");
const cases = readdirSync(TESTDATA).sort();

describe("golden dnsmasq configs", () => {
  it("exist", () => expect(cases.length).toBeGreaterThanOrEqual(4));
  it.each(cases)("%s passes dnsmasq --test", (name) => {
    const r = sh("dnsmasq", ["--test", `--conf-file=${join(TESTDATA, name, "dnsmasq.conf")}`], { allowFail: true });
    expect(r.stderr.trim()).toBe("dnsmasq: syntax check OK.");
    expect(r.code).toBe(0);
  });
});
