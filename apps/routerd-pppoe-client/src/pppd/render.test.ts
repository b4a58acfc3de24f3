// Golden files for pppd's files: testdata/<case>.json holds a session config; <case>.options,
// <case>.secrets and <case>.ip-up are the expected texts. ROUTERD_UPDATE_GOLDEN=1 rewrites them.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSessionConfig } from "../config.js";
import { pppdWord, renderHook, renderOptions, renderSecrets, shellWord } from "./render.js";

const TESTDATA = new URL("./testdata", import.meta.url).pathname;
const UPDATE = process.env.ROUTERD_UPDATE_GOLDEN === "1";

function golden(path: string, actual: string): void {
  if (UPDATE) writeFileSync(path, actual);
  expect(actual).toBe(readFileSync(path, "utf8"));
}

const cases = readdirSync(TESTDATA).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5)).sort();

describe.each(cases)("pppd files for %s", (name) => {
  const config = parseSessionConfig(JSON.parse(readFileSync(join(TESTDATA, `${name}.json`), "utf8")));
  it("options", () => golden(join(TESTDATA, `${name}.options`), renderOptions(config, { instance: name, debug: name.includes("debug") })));
  it("secrets", () => golden(join(TESTDATA, `${name}.secrets`), renderSecrets(config.username, config.password ?? "from-file", name)));
  it("ip-up hook", () => golden(join(TESTDATA, `${name}.ip-up`), renderHook("ip-up", { node: "/usr/bin/node", program: "/usr/lib/routerd/bin/routerd-pppoe-client.js", socket: `/run/routerd/pppoe-client/${name}.sock`, log: `/var/lib/routerd/pppoe-client/${name}/ppp/hooks.log` })));
});

describe("quoting", () => {
  it("escapes backslashes and double quotes for pppd's word parser", () => {
    expect(pppdWord('a"b\\c d')).toBe('"a\\"b\\\\c d"');
  });
  it("single-quotes shell words, quotes inside included", () => {
    expect(shellWord("/opt/it's here")).toBe("'/opt/it'\\''s here'");
  });
});
