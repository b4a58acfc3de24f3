import { describe, expect, it } from "vitest";
import { assertDaemonName, daemonSocketPath, daemonStateDir, isValidDaemonName, unixTarget } from "./socket-path.js";

describe("socket paths", () => {
  it("puts each instance's socket and state under the daemon's name", () => {
    expect(daemonSocketPath("/run/routerd", "dhcpv4-client", "wan")).toBe("/run/routerd/dhcpv4-client/wan.sock");
    expect(daemonStateDir("/var/lib/routerd", "dhcpv4-client", "wan")).toBe("/var/lib/routerd/dhcpv4-client/wan");
    expect(unixTarget("/run/routerd/healthcheck/default.sock")).toBe("unix:/run/routerd/healthcheck/default.sock");
  });

  it("makes relative directories absolute", () => {
    expect(daemonSocketPath("run", "echo", "a")).toBe(`${process.cwd()}/run/echo/a.sock`);
    expect(unixTarget("x.sock")).toBe(`unix:${process.cwd()}/x.sock`);
  });

  it("accepts names that are one safe path segment and rejects the rest", () => {
    for (const ok of ["wan", "eth0.100", "ppp0@isp", "lan_1", "A-b"]) expect(isValidDaemonName(ok)).toBe(true);
    for (const bad of ["", ".", "..", "../x", "a/b", "-x", "a b", "x".repeat(65)]) expect(isValidDaemonName(bad)).toBe(false);
    expect(() => assertDaemonName("instance", "a/b")).toThrow(/invalid instance name "a\/b"/);
    expect(() => daemonSocketPath("/run", "..", "x")).toThrow(RangeError);
  });
});
