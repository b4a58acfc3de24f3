import { commandHelp, visible, type Command } from "@routerd/cli";
import { describe, expect, it } from "vitest";
import { PROGRAM } from "./index.js";

function all(commands: readonly Command[], path: string[]): [string[], Command][] {
  return visible(commands).flatMap((c) => [[path, c] as [string[], Command], ...all(c.subcommands ?? [], [...path, c.name])]);
}

describe("routerd's command registry", () => {
  it("has unique command names", () => {
    const names = PROGRAM.commands.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });
  it.each(all(PROGRAM.commands, ["routerd"]).map(([p, c]) => [[...p, c.name].join(" "), p, c] as const))("%s has a manual page with a synopsis and an example", (_n, path, c) => {
    expect(c.usage.startsWith(c.name)).toBe(true);
    expect(c.examples?.length ?? 0).toBeGreaterThan(0);
    const help = commandHelp(c, path);
    for (const section of ["NAME", "SYNOPSIS", "OPTIONS", "EXIT STATUS", "EXAMPLES"]) expect(help).toContain(`\n${section}\n`.slice(section === "NAME" ? 1 : 0));
  });
});
