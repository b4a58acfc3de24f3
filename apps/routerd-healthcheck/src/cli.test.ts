import { describe, expect, it } from "vitest";
import { parseCli } from "./cli.js";

describe("parseCli", () => {
  it("reads every option", () => {
    expect(parseCli(["--config", "/x/hc.json", "--instance", "lab", "--run-dir", "/r", "--state-dir", "/s", "--log-level", "debug"])).toEqual({
      kind: "run",
      options: { configPath: "/x/hc.json", instance: "lab", runDir: "/r", stateDir: "/s", logLevel: "debug" },
    });
  });

  it("defaults to the default instance and the system directories", () => {
    expect(parseCli(["--config", "hc.json"])).toEqual({
      kind: "run",
      options: { configPath: "hc.json", instance: "default", runDir: "/run/routerd", stateDir: "/var/lib/routerd", logLevel: "info" },
    });
  });

  it("prints help", () => {
    const r = parseCli(["--help"]);
    expect(r.kind).toBe("help");
    expect(r.kind === "help" && r.text).toMatch(/--config FILE/);
  });

  const errors: [string[], RegExp][] = [
    [[], /--config FILE is required/],
    [["--config"], /argument missing/],
    [["--config", "x", "--bogus"], /Unknown option '--bogus'/],
    [["--config", "x", "extra"], /Unexpected argument 'extra'/],
    [["--config", "x", "--log-level", "loud"], /--log-level must be one of/],
  ];
  for (const [argv, re] of errors) {
    it(`rejects ${JSON.stringify(argv)}`, () => {
      const r = parseCli(argv);
      expect(r.kind).toBe("error");
      expect(r.kind === "error" && r.message).toMatch(re);
    });
  }
});
