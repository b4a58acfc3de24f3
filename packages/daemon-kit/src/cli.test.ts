// The daemons' shared command line: the config-file form every daemon has, and the variants a daemon without
// a config file and with a standalone form (routerd-dhcpv4-client) asks for. The module loads no gRPC.
import { describe, expect, it } from "vitest";
import { parseDaemonCli } from "./cli.js";

describe("parseDaemonCli", () => {
  it("config-file daemons: --config and --instance required, routerd's directories by default", () => {
    expect(parseDaemonCli([], { usage: "u" })).toEqual({ kind: "error", message: "--config FILE is required" });
    expect(parseDaemonCli(["--config", "c.json"], { usage: "u" })).toEqual({ kind: "error", message: "--instance NAME is required" });
    expect(parseDaemonCli(["--config", "c.json", "--instance", "a"], { usage: "u" })).toEqual({
      kind: "run",
      options: { configPath: "c.json", instance: "a", runDir: "/run/routerd", stateDir: "/var/lib/routerd", logLevel: "info" },
    });
  });

  it("no config file, an optional instance (checked when given) and no directory defaults", () => {
    const spec = { usage: "u", config: "none", instanceOptional: true, dirDefaults: false, instancePattern: /^[a-z]+$/, instanceMissing: "bad instance" } as const;
    expect(parseDaemonCli([], spec)).toEqual({ kind: "run", options: { configPath: "", instance: "", runDir: "", stateDir: "", logLevel: "info" } });
    expect(parseDaemonCli(["--instance", "../x"], spec)).toEqual({ kind: "error", message: "bad instance" });
    expect(parseDaemonCli(["--instance", ""], spec)).toEqual({ kind: "error", message: "bad instance" });
    expect(parseDaemonCli(["--config", "c.json"], spec).kind).toBe("error"); // no such option here
    expect(parseDaemonCli(["-h"], spec)).toEqual({ kind: "help", text: "u" });
  });
});
