import { describe, expect, it } from "vitest";
import { prefixWithin, redistributionDumps, selectRedistributed } from "./redistribute.js";

describe("redistribution", () => {
  it("prefix containment, IPv4 and IPv6", () => {
    expect(prefixWithin("10.1.2.0/24", "10.0.0.0/8")).toBe(true);
    expect(prefixWithin("10.0.0.0/8", "10.1.0.0/16")).toBe(false);
    expect(prefixWithin("11.0.0.0/24", "10.0.0.0/8")).toBe(false);
    expect(prefixWithin("2001:db8:1::/48", "2001:db8::/32")).toBe(true);
    expect(prefixWithin("2001:db9::/48", "2001:db8::/32")).toBe(false);
    expect(prefixWithin("10.0.0.0/8", "::/0")).toBe(false);
  });

  const spec = { asn: 1, routerID: "192.0.2.1", backend: "gobgp" as const, redistribute: { connected: { allowedPrefixes: ["192.168.0.0/16", "2001:db8::/32"] }, static: {} } };

  it("asks the kernel for the redistributed protocols only, never the whole table (it may hold a full BGP feed)", () => {
    expect(redistributionDumps(spec, 219).map((d) => d.args.join(" "))).toEqual([
      "-4 route show table main proto kernel",
      "-6 route show table main proto kernel",
      "-4 route show table main proto boot",
      "-6 route show table main proto boot",
      "-4 route show table main proto static",
      "-6 route show table main proto static",
    ]);
    expect(redistributionDumps({ ...spec, redistribute: { connected: {} } }, 219).map((d) => d.proto)).toEqual(["kernel", "kernel"]);
    expect(redistributionDumps({ ...spec, redistribute: undefined }, 219)).toEqual([]);
    // routerd-bgp's own protocol is never read back as a source.
    expect(redistributionDumps(spec, 4).map((d) => d.proto)).not.toContain("static");
  });

  it("connected: IPv4 scope-link routes and every IPv6 one (IPv6 has no scope), inside allowedPrefixes; never link-local", () => {
    // As `ip -j -4 route show table main proto kernel` prints them.
    const v4 = [
      { dst: "192.168.10.0/24", scope: "link" },
      { dst: "10.99.0.0/24", scope: "link" },
      { dst: "192.168.20.0/24" },
      { dst: "192.168.30.0/24", scope: "link", type: "broadcast" },
    ];
    expect(selectRedistributed(v4, "kernel", false, spec)).toEqual(["192.168.10.0/24"]);
    const v6 = [{ dst: "2001:db8:5::/64" }, { dst: "fe80::/64" }, { dst: "2001:db9::/64" }];
    expect(selectRedistributed(v6, "kernel", true, spec)).toEqual(["2001:db8:5::/64"]);
  });

  it("static: proto static and boot routes; nothing for a source that is not configured", () => {
    expect(selectRedistributed([{ dst: "198.51.100.0/24" }], "static", false, spec)).toEqual(["198.51.100.0/24"]);
    expect(selectRedistributed([{ dst: "203.0.113.0/24" }], "boot", false, spec)).toEqual(["203.0.113.0/24"]);
    expect(selectRedistributed([{ dst: "198.51.100.0/24" }], "static", false, { ...spec, redistribute: { connected: {} } })).toEqual([]);
    expect(selectRedistributed([{ dst: "172.16.1.0/24" }], "219", false, spec)).toEqual([]);
  });
});
