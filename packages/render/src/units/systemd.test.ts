// Every routerd unit (core, daemon templates, a daemon instance's own unit) sets the program environment
// serve's built-in supervisor gives the daemons: the same allocator settings whoever starts them.
import { describe, expect, it } from "vitest";
import { PROGRAM_ENVIRONMENT, PROGRAMS } from "./programs.js";
import { renderSystemdInstanceUnit, systemdUnits } from "./systemd.js";

describe("systemd units' environment", () => {
  it("sets MALLOC_ARENA_MAX=2 in every unit", () => {
    expect(PROGRAM_ENVIRONMENT).toEqual({ MALLOC_ARENA_MAX: "2" });
    const units = systemdUnits(PROGRAMS);
    expect(units.size).toBe(PROGRAMS.length);
    for (const [name, text] of units) expect(text.split("\n"), name).toContain("Environment=MALLOC_ARENA_MAX=2");
  });

  it("keeps it in a daemon instance's own unit", () => {
    const bgp = PROGRAMS.find((p) => p.daemon === "bgp")!;
    const text = renderSystemdInstanceUnit(bgp, "edge", ["--instance", "edge"]);
    expect(text.split("\n")).toContain("Environment=MALLOC_ARENA_MAX=2");
    expect(text).toMatch(/^ExecStart=\/usr\/bin\/routerd-bgp --instance edge$/m);
  });
});
