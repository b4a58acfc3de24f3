import { describe, expect, it } from "vitest";
import type { Command, Program } from "./command.js";
import { commandHelp, programHelp } from "./help.js";
import { runCli } from "./run.js";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => void out.push(s), err: (s: string) => void err.push(s) }, out, err };
}

const seen: { values?: unknown; positionals?: string[] } = {};
const get: Command = {
  name: "get",
  summary: "list resources",
  usage: "get KIND[/NAME] [--json]",
  description: "Lists resources.",
  options: { json: { type: "boolean", description: "as JSON" }, "state-dir": { type: "string", default: "/var/lib/x", valueName: "DIR", description: "state" } },
  positionals: [{ name: "KIND[/NAME]", description: "what to list" }],
  examples: [{ command: "demo get Interface", description: "every interface" }],
  exitCodes: { 0: "found", 1: "error", 3: "nothing matched" },
  seeAlso: ["demo describe"],
  async run(values, _io, positionals) {
    seen.values = values;
    seen.positionals = positionals;
    return 3;
  },
};
const stats: Command = { name: "stats", summary: "resolver statistics", usage: "dns stats", options: {}, run: async () => 7 };
const PROGRAM: Program = { name: "demo", summary: "a demo", version: "1.2.3", commands: [get, { name: "dns", summary: "the resolver", usage: "dns COMMAND", options: {}, subcommands: [stats] }] };

describe("runCli", () => {
  it("runs the command with parsed flags, defaults and positionals, returning its exit code", async () => {
    const c = capture();
    expect(await runCli(PROGRAM, ["get", "Interface/wan", "--json"], c.io)).toBe(3);
    expect(seen).toEqual({ values: { json: true, "state-dir": "/var/lib/x" }, positionals: ["Interface/wan"] });
  });

  it("descends into command groups", async () => {
    expect(await runCli(PROGRAM, ["dns", "stats"], capture().io)).toBe(7);
  });

  it("prints a group's manual (exit 1) when its subcommand is missing", async () => {
    const c = capture();
    expect(await runCli(PROGRAM, ["dns"], c.io)).toBe(1);
    expect(c.err.join("\n")).toContain("COMMANDS\n    stats  resolver statistics");
  });

  it("refuses unknown commands and flags with a pointer to help", async () => {
    const a = capture();
    expect(await runCli(PROGRAM, ["apply"], a.io)).toBe(1);
    expect(a.err[0]).toMatch(/^demo: unknown command "apply"/);
    const b = capture();
    expect(await runCli(PROGRAM, ["get", "--jsno"], b.io)).toBe(1);
    expect(b.err[0]).toContain("Unknown option '--jsno'");
    expect(b.err[0]).toContain("Run 'demo get --help'");
    const c = capture();
    expect(await runCli(PROGRAM, ["dns", "nope"], c.io)).toBe(1);
    expect(c.err[0]).toMatch(/^demo dns: unknown command "nope"/);
  });

  it("prints --version and help", async () => {
    const v = capture();
    expect(await runCli(PROGRAM, ["--version"], v.io)).toBe(0);
    expect(v.out).toEqual(["demo 1.2.3"]);
    const h = capture();
    expect(await runCli(PROGRAM, ["get", "--help"], h.io)).toBe(0);
    expect(h.out[0]).toBe(commandHelp(get, ["demo"]));
    const none = capture();
    expect(await runCli(PROGRAM, [], none.io)).toBe(1);
    expect(none.out[0]).toBe(programHelp(PROGRAM));
  });
});

describe("man-style help", () => {
  it("has the sections of a manual page, in order", () => {
    const text = commandHelp(get, ["demo"]);
    const titles = text.split("\n").filter((l) => /^[A-Z][A-Z ]+$/.test(l));
    expect(titles).toEqual(["NAME", "SYNOPSIS", "DESCRIPTION", "ARGUMENTS", "OPTIONS", "EXIT STATUS", "EXAMPLES", "SEE ALSO"]);
    expect(text).toContain("NAME\n    demo get - list resources");
    expect(text).toContain("--state-dir DIR\n        state (default /var/lib/x)");
    expect(text).toContain("EXIT STATUS\n    0   found\n    1   error\n    3   nothing matched");
    expect(text).toContain("EXAMPLES\n    demo get Interface\n        every interface");
  });

  it("documents exit 0 and 1 when a command does not say", () => {
    expect(commandHelp(stats, ["demo", "dns"])).toContain("EXIT STATUS\n    0   success\n    1   failure (the message says why)");
  });
});
