import { describe, expect, it } from "vitest";
import { parseCli } from "./cli.js";

describe("routerd-bgp command line", () => {
  it("needs a config and the BGPRouter's name", () => {
    expect(parseCli([]).kind).toBe("error");
    expect(parseCli(["--config", "x.json"])).toMatchObject({ kind: "error", message: expect.stringMatching(/--instance/) });
    expect(parseCli(["-h"]).kind).toBe("help");
  });

  it("defaults and durations", () => {
    const r = parseCli(["--config", "x.json", "--instance", "edge", "--stale-hold", "30s", "--keep-gobgpd"]);
    expect(r).toMatchObject({ kind: "run", options: { instance: "edge", root: "/", gobgpd: "gobgpd", keepGobgpd: true, staleHoldMs: 30_000 } });
    expect(parseCli(["--config", "x", "--instance", "edge", "--stale-hold", "soon"]).kind).toBe("error");
  });
});
