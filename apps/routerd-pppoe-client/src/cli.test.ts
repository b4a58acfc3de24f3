import { describe, expect, it } from "vitest";
import { parseCli } from "./cli.js";

describe("command line", () => {
  it("needs --config and --instance", () => {
    expect(parseCli(["--instance", "wan"])).toEqual({ kind: "error", message: "--config FILE is required" });
    expect(parseCli(["--config", "c.json"])).toEqual({ kind: "error", message: "--instance NAME is required" });
  });
  it("passes everything after `hook` to the hook", () => {
    expect(parseCli(["hook", "--socket", "s", "--event", "ip-up", "--", "ppp0"])).toEqual({ kind: "hook", argv: ["--socket", "s", "--event", "ip-up", "--", "ppp0"] });
  });
  it("prints help", () => expect(parseCli(["-h"])).toMatchObject({ kind: "help" }));
});
