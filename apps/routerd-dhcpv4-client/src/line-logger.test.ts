import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { isLevelName, lineLogger, type EngineLogger } from "./line-logger.js";

describe("line logger", () => {
  it("writes pino's JSON line layout with bindings, fields and level filtering", () => {
    const lines: string[] = [];
    const log = lineLogger({ name: "routerd-dhcpv4-client", level: "info", fd: 1, now: () => 1234, write: (l) => lines.push(l) });
    const child = log.child({ interface: "wan0" });
    child.debug({ what: "DISCOVER" }, "send");
    child.info({ address: "192.0.2.9", err: new Error("boom") }, "lease event");
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith("\n")).toBe(true);
    const rec = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(rec).toMatchObject({ level: 30, time: 1234, pid: process.pid, name: "routerd-dhcpv4-client", interface: "wan0", address: "192.0.2.9", msg: "lease event" });
    expect(rec.err).toMatchObject({ type: "Error", message: "boom" });
    expect(Object.keys(rec).at(-1)).toBe("msg");
  });

  it("is what a pino logger is, so the engine takes either", () => {
    const p: EngineLogger = pino({ level: "silent" });
    expect(typeof p.child({ a: 1 }).info).toBe("function");
    expect(["trace", "info", "silent"].every(isLevelName)).toBe(true);
    expect(isLevelName("loud")).toBe(false);
    expect(isLevelName("toString")).toBe(false);
  });

  it("never throws when the write fails", () => {
    const log = lineLogger({ name: "x", level: "trace", fd: 1, write: () => {
      throw new Error("EPIPE");
    } });
    expect(() => log.error({}, "still alive")).not.toThrow();
  });
});
