import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Program } from "./command.js";
import { bashCompletion, zshCompletion } from "./completion.js";

const noop = async () => 0;
const PROGRAM: Program = {
  name: "demo",
  summary: "a demo program",
  commands: [
    {
      name: "apply",
      summary: "apply: now",
      usage: "apply",
      options: {
        config: { type: "string", short: "c", description: "the [config] file", complete: "file" },
        once: { type: "boolean", description: "once" },
        kind: { type: "string", description: "what to render", complete: ["nft", "dnsmasq"] },
      },
      run: noop,
    },
    { name: "dns", summary: "dns things", usage: "dns", options: {}, subcommands: [{ name: "stats", summary: "stats", usage: "dns stats", options: { json: { type: "boolean", description: "json" } }, run: noop }] },
    { name: "get", summary: "get", usage: "get KIND", options: {}, positionals: [{ name: "KIND", description: "a kind", complete: ["Interface", "NAT44Rule"] }], run: noop },
    { name: "watchdog", summary: "internal", usage: "watchdog", options: {}, hidden: true, run: noop },
  ],
};

const dir = mkdtempSync(join(tmpdir(), "routerd-cli-completion-"));
writeFileSync(join(dir, "demo.bash"), bashCompletion(PROGRAM));
writeFileSync(join(dir, "_demo"), zshCompletion(PROGRAM));
writeFileSync(join(dir, "data.yaml"), "");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What bash offers after `words` (the last word is the one being completed). */
function bash(...words: string[]): string[] {
  const script = `source ${join(dir, "demo.bash")}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _demo; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync("bash", ["-c", script], { encoding: "utf8" });
  expect(r.stderr).toBe("");
  return r.stdout.split("\n").filter(Boolean).sort();
}

/** What an interactive zsh offers when Tab is pressed after `line`. */
function zsh(line: string): string[] {
  const r = spawnSync("zsh", [new URL("testdata/zsh-capture.zsh", import.meta.url).pathname, join(dir, "_demo"), line, dir], { encoding: "utf8", timeout: 20_000 });
  // eslint-disable-next-line no-control-regex
  return r.stdout.split("\n").map((l) => l.replace(/\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x1f]/g, "").trim()).filter(Boolean).sort();
}

describe("bash completion (real bash)", () => {
  it("completes commands, hiding internal ones", () => expect(bash("demo", "")).toEqual(["apply", "dns", "get"]));
  it("completes a command prefix", () => expect(bash("demo", "ap")).toEqual(["apply"]));
  it("completes options of the command", () => expect(bash("demo", "apply", "--")).toEqual(["--config", "--help", "--kind", "--once"]));
  it("completes fixed option values", () => expect(bash("demo", "apply", "--kind", "")).toEqual(["dnsmasq", "nft"]));
  it("completes files for file options", () => expect(bash("demo", "apply", "-c", join(dir, "da"))).toEqual([join(dir, "data.yaml")]));
  it("descends into groups", () => {
    expect(bash("demo", "dns", "")).toEqual(["stats"]);
    expect(bash("demo", "dns", "stats", "--")).toEqual(["--help", "--json"]);
  });
  it("completes positional arguments", () => expect(bash("demo", "get", "N")).toEqual(["NAT44Rule"]));
  it("skips option values when finding the command", () => expect(bash("demo", "apply", "--kind", "nft", "--o")).toEqual(["--once"]));
});

describe("zsh completion (real zsh in a pseudo-terminal)", { timeout: 60_000 }, () => {
  it("parses", () => expect(spawnSync("zsh", ["-n", join(dir, "_demo")]).status).toBe(0));
  it("completes commands", () => expect(zsh("demo ")).toEqual(["apply", "dns", "get"]));
  it("completes options and their values", () => {
    expect(zsh("demo apply --")).toEqual(["--config", "--help", "--kind", "--once"]);
    expect(zsh("demo apply --kind ")).toEqual(["dnsmasq", "nft"]);
  });
  it("completes files, groups and positionals", () => {
    expect(zsh(`demo apply -c ${join(dir, "da")}`)).toEqual(["data.yaml"]);
    expect(zsh("demo dns ")).toEqual(["stats"]);
    expect(zsh("demo get N")).toEqual(["NAT44Rule"]);
  });
});
