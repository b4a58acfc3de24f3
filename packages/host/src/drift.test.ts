import { describe, expect, it } from "vitest";
import { driftOf } from "./drift.js";

describe("driftOf", () => {
  it.each([
    ["linux.link", { ifname: "lan0", adminUp: true, mtu: 1400 }, { ifname: "lan0", adminUp: true, mtu: 1500, operstate: "UP" }, ["mtu"]],
    ["linux.link", { ifname: "lan0", adminUp: true }, { ifname: "lan0", adminUp: true, mtu: 9000 }, []],
    ["linux.ipv4.route", { table: 254, destination: "0.0.0.0/0", metric: 0, type: "unicast", gateway: "192.0.2.1" }, { table: 254, destination: "0.0.0.0/0", metric: 0, type: "unicast", gateway: "192.0.2.1", device: "wan0" }, []],
    ["linux.ipv4.route", { table: 254, destination: "0.0.0.0/0", metric: 0, type: "unicast", gateway: "192.0.2.1" }, { table: 254, destination: "0.0.0.0/0", metric: 0, type: "unicast", gateway: "192.0.2.9" }, ["gateway"]],
    ["linux.sysctl", { key: "net.ipv4.ip_forward", value: "1" }, { key: "net.ipv4.ip_forward", value: "0" }, ["value"]],
    ["nft.set", { family: "ip", table: "t", set: "s", elements: ["10.0.0.0/8"] }, { family: "ip", table: "t", set: "s", elements: ["10.0.0.0/8", "1.2.3.4"] }, ["elements"]],
  ] as const)("%s %j vs %j → %j", (kind, desired, observed, fields) => {
    expect(driftOf(kind, desired, observed).map((d) => d.field)).toEqual(fields);
  });

  it("compares nft tables by the digest routerd wrote, and notices edits made after it recorded them", () => {
    const desired = { family: "ip", table: "routerd_nat", contentDigest: "aa", content: "..." };
    expect(driftOf("nft.table", desired, { contentDigest: "aa", hostDigest: "h1" })).toEqual([]);
    expect(driftOf("nft.table", desired, { contentDigest: "bb", hostDigest: "h1" })).toHaveLength(1);
    expect(driftOf("nft.table", desired, { hostDigest: "h1" })[0]?.observed).toBe("(not written by routerd)");
    expect(driftOf("nft.table", desired, { contentDigest: "aa", hostDigest: "h2" }, { hostDigest: "h1" })[0]?.observed).toBe("changed outside routerd");
  });
});
