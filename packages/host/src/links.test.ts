// Links routerd creates: the `ip link` lines for each type and state, and the observed parameters reduced to
// the same shape (from real `ip -d -j link` output of kernel 6.1 / iproute2 6.1).
import { describe, expect, it } from "vitest";
import { IP_LINES } from "./executors/ip-lines.js";
import { LINK_TYPES, linkAddLine, linkNeedsRecreate } from "./links.js";
import { driftOf } from "./drift.js";

const link = IP_LINES["linux.link"]!;

describe("link lines", () => {
  const vrf = { ifname: "blue", linkType: "vrf", linkData: { table: 10 }, adminUp: true, members: ["eth1", "eth2"] };

  it("creates an absent link, then sets it up and enslaves its members", () => {
    expect(link.ensure(vrf, 0, undefined)).toEqual(["link add blue type vrf table 10", "link set dev blue up", "link set dev eth1 master blue", "link set dev eth2 master blue"]);
  });

  it("only sets a link that is there as wanted", () => {
    expect(link.ensure(vrf, 0, { ifname: "blue", linkType: "vrf", linkData: { table: 10 } })).toEqual(["link set dev blue up", "link set dev eth1 master blue", "link set dev eth2 master blue"]);
  });

  it("makes a link again when its parameters differ (the kernel cannot change a VRF's table in place)", () => {
    expect(link.ensure(vrf, 0, { ifname: "blue", linkType: "vrf", linkData: { table: 11 } }).slice(0, 2)).toEqual(["link del blue", "link add blue type vrf table 10"]);
  });

  it("never creates or removes a link without a link type (an Interface's NIC)", () => {
    expect(link.ensure({ ifname: "eth0", adminUp: true }, 0, undefined)).toEqual(["link set dev eth0 up"]);
    expect(link.remove({ ifname: "eth0" })).toEqual([]);
    expect(link.remove(vrf)).toEqual(["link del blue"]);
  });

  it.each([
    ["vxlan", { vni: 42, local: "192.0.2.2", dev: "d0", port: 4789, learning: false }, "link add vx0 type vxlan id 42 local 192.0.2.2 dev d0 dstport 4789 nolearning"],
    ["gre", { local: "192.0.2.2", remote: "192.0.2.1", ttl: 64, key: 7 }, "link add vx0 type gre local 192.0.2.2 remote 192.0.2.1 ttl 64 key 7"],
    ["ipip", { remote: "192.0.2.1", encap: "fou", encapSport: "auto", encapDport: 5555, pmtudisc: false }, "link add vx0 type ipip remote 192.0.2.1 nopmtudisc encap fou encap-sport auto encap-dport 5555"],
    ["ip6tnl", { mode: "ip4ip6", local: "2001:db8::2", remote: "2001:db8::1", dev: "d0", encapLimit: "none" }, "link add vx0 type ip6tnl mode ip4ip6 local 2001:db8::2 remote 2001:db8::1 dev d0 encaplimit none"],
  ] as const)("%s: ip link add", (type, data, line) => {
    expect(linkAddLine("vx0", type, data)).toBe(line);
  });
});

describe("observed link parameters", () => {
  it.each([
    ["vrf", { table: 10 }, { table: 10 }],
    ["vxlan", { id: 42, local: "192.0.2.2", link: "d0", port_range: { low: 0, high: 0 }, port: 4789, learning: false, ttl: 0, df: "unset", ageing: 300 }, { vni: 42, local: "192.0.2.2", dev: "d0", port: 4789, learning: false, df: "unset" }],
    ["gre", { remote: "192.0.2.1", local: "192.0.2.2", ttl: 64, pmtudisc: true, ikey: "0.0.0.7", okey: "0.0.0.7" }, { remote: "192.0.2.1", local: "192.0.2.2", ttl: 64, pmtudisc: true, key: 7 }],
    [
      "ipip",
      { proto: "any", remote: "192.0.2.1", local: "192.0.2.2", ttl: 0, pmtudisc: true, encap: { type: "fou", sport: 0, dport: 5555, csum: false } },
      { remote: "192.0.2.1", local: "192.0.2.2", pmtudisc: true, encap: "fou", encapSport: "auto", encapDport: 5555 },
    ],
    [
      "ip6tnl",
      { proto: "ipip6", remote: "2001:db8::1", local: "2001:db8::2", link: "d0", ttl: 64, ip6_tnl_f_ign_encap_limit: true, tclass: "0x00" },
      { mode: "ip4ip6", remote: "2001:db8::1", local: "2001:db8::2", dev: "d0", encapLimit: "none" },
    ],
  ] as const)("%s", (type, info, data) => {
    expect(LINK_TYPES[type]!.observed(info)).toEqual(data);
  });

  it("a desired parameter the kernel reports differently means the link is made again; extra reported ones do not", () => {
    const want = { linkType: "gre", linkData: { remote: "192.0.2.1", key: 7 } };
    expect(linkNeedsRecreate(want, { linkType: "gre", linkData: { remote: "192.0.2.1", key: 7, ttl: 64 } })).toBe(false);
    expect(linkNeedsRecreate(want, { linkType: "gre", linkData: { remote: "192.0.2.9", key: 7 } })).toBe(true);
    expect(linkNeedsRecreate(want, { linkType: "ipip", linkData: {} })).toBe(true);
    expect(linkNeedsRecreate({ ifname: "eth0" }, { linkType: "veth" })).toBe(false);
  });

  it("drift compares the asked-for parameters and the members as a set", () => {
    const desired = { ifname: "blue", linkType: "vrf", linkData: { table: 10 }, adminUp: true, members: ["eth2", "eth1"] };
    expect(driftOf("linux.link", desired, { ifname: "blue", linkType: "vrf", linkData: { table: 10 }, adminUp: true, members: ["eth1", "eth2"], mtu: 65575 })).toEqual([]);
    expect(driftOf("linux.link", desired, { ifname: "blue", linkType: "vrf", linkData: { table: 10 }, adminUp: true, members: ["eth1"] })).toEqual([{ field: "members", desired: ["eth1", "eth2"], observed: ["eth1"] }]);
  });
});
