import { describe, expect, it } from "vitest";
import { parseTarget } from "../commands/get.js";
import { resolveKind } from "./collect.js";
import { age, fieldsText, parseFormat, serialize, table } from "./format.js";

describe("get's arguments", () => {
  it("accepts kinds case-insensitively and in the plural", () => {
    expect(resolveKind("interface")).toBe("Interface");
    expect(resolveKind("Interfaces")).toBe("Interface");
    expect(resolveKind("dhcpv4clients")).toBe("DHCPv4Client");
    expect(resolveKind("ipaddresssets")).toBe("IPAddressSet");
    expect(resolveKind("routers")).toBeUndefined();
  });
  it("splits KIND/NAME and names the kinds when one is unknown", () => {
    expect(parseTarget("ipv4route/default")).toEqual({ kind: "IPv4Route", name: "default" });
    expect(parseTarget(undefined)).toEqual({});
    expect(parseTarget("all")).toEqual({});
    expect(parseTarget("Nope/x")).toMatch(/^no kind "Nope"; kinds: Interface, /);
  });
  it("knows its output formats", () => {
    expect(parseFormat(undefined, false)).toEqual({ format: "table" });
    expect(parseFormat("yaml", false)).toEqual({ format: "yaml" });
    expect(parseFormat(undefined, true)).toEqual({ format: "json" });
    expect(parseFormat("wide", false)).toEqual({ error: "-o wide: choose table, json or yaml" });
  });
});

describe("renderings", () => {
  it("shows fields with values, lists joined, the kind's phase and empty lists left out", () => {
    expect(fieldsText({ phase: "Bound", currentAddress: "192.0.2.2/24", dnsServers: ["192.0.2.53", "192.0.2.54"], routes: [], gateway: null })).toBe("currentAddress=192.0.2.2/24 dnsServers=192.0.2.53,192.0.2.54");
  });
  it("prints ages the way people read them", () => {
    const now = Date.parse("2025-01-01T12:00:00Z");
    expect([5, 600, 10_800, 259_200].map((s) => age(new Date(now - s * 1000).toISOString(), now))).toEqual(["5s", "10m", "3h", "3d"]);
    expect(age(undefined)).toBe("-");
  });
  it("aligns tables and emits YAML", () => {
    expect(table(["A", "B"], [["long-name", "x"], ["s", "y"]])).toBe("A          B\nlong-name  x\ns          y");
    expect(serialize({ a: [1, 2] }, "yaml")).toBe("a:\n  - 1\n  - 2");
  });
});
