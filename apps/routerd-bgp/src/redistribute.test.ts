import { describe, expect, it } from "vitest";
import { prefixWithin, selectRedistributed } from "./redistribute.js";

describe("redistribution", () => {
  it("prefix containment, IPv4 and IPv6", () => {
    expect(prefixWithin("10.1.2.0/24", "10.0.0.0/8")).toBe(true);
    expect(prefixWithin("10.0.0.0/8", "10.1.0.0/16")).toBe(false);
    expect(prefixWithin("11.0.0.0/24", "10.0.0.0/8")).toBe(false);
    expect(prefixWithin("2001:db8:1::/48", "2001:db8::/32")).toBe(true);
    expect(prefixWithin("2001:db9::/48", "2001:db8::/32")).toBe(false);
    expect(prefixWithin("10.0.0.0/8", "::/0")).toBe(false);
  });

  it("connected and static routes inside allowedPrefixes; never link-local nor routerd-bgp's own", () => {
    const routes = [
      { dst: "192.168.10.0/24", protocol: "kernel", scope: "link" },
      { dst: "10.99.0.0/24", protocol: "kernel", scope: "link" },
      { dst: "198.51.100.0/24", protocol: "static" },
      { dst: "172.16.1.0/24", protocol: "219" },
    ];
    const spec = { asn: 1, routerID: "192.0.2.1", backend: "gobgp" as const, redistribute: { connected: { allowedPrefixes: ["192.168.0.0/16"] }, static: {} } };
    expect(selectRedistributed(routes, false, spec, 219)).toEqual(["192.168.10.0/24", "198.51.100.0/24"]);
    expect(selectRedistributed([{ dst: "fe80::/64", protocol: "kernel", scope: "link" }], true, { ...spec, redistribute: { connected: {} } }, 219)).toEqual([]);
  });
});
