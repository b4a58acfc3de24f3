import { describe, expect, it } from "vitest";
import { IP_LINES, failedBatchLines } from "./ip-lines.js";

describe("ip -batch lines", () => {
  it.each([
    ["linux.link", "ensure", { ifname: "lan0", adminUp: true, mtu: 1400 }, ["link set dev lan0 mtu 1400 up"]],
    ["linux.link", "ensure", { ifname: "lan0", adminUp: false }, ["link set dev lan0 down"]],
    ["linux.ipv4.address", "ensure", { ifname: "lan0", address: "192.168.1.1", prefixLength: 24 }, ["address replace 192.168.1.1/24 dev lan0"]],
    ["linux.ipv4.address", "remove", { ifname: "lan0", address: "192.168.1.1", prefixLength: 24 }, ["address del 192.168.1.1/24 dev lan0"]],
    ["linux.ipv4.address", "ensure", { ifname: "t1", address: "10.255.0.1", prefixLength: 32, peer: "10.255.0.2" }, ["address replace 10.255.0.1/32 peer 10.255.0.2 dev t1"]],
    ["linux.ipv4.route", "ensure", { table: 101, destination: "0.0.0.0/0", metric: 0, type: "unicast", gateway: "198.51.100.1", device: "wan1" }, ["route replace 0.0.0.0/0 via 198.51.100.1 dev wan1 table 101 metric 0"]],
    ["linux.ipv4.route", "ensure", { table: 254, destination: "10.66.0.0/16", metric: 10, type: "blackhole" }, ["route replace blackhole 10.66.0.0/16 table 254 metric 10"]],
    ["linux.ipv4.route", "remove", { table: 254, destination: "10.0.0.0/8", metric: 5, type: "unicast", gateway: "192.0.2.1" }, ["route del 10.0.0.0/8 table 254 metric 5"]],
    ["linux.ipv4.route", "ensure", { table: 254, destination: "10.244.0.0/16", metric: 0, type: "unicast", nexthops: [{ gateway: "192.0.2.11", device: "lan0", weight: 2 }, { gateway: "192.0.2.12", device: "lan0", weight: 1 }] }, ["route replace 10.244.0.0/16 table 254 metric 0 nexthop via 192.0.2.11 dev lan0 weight 2 nexthop via 192.0.2.12 dev lan0 weight 1"]],
    ["linux.ipv4.route", "remove", { table: 254, destination: "10.244.0.0/16", metric: 0, type: "unicast", nexthops: [{ gateway: "192.0.2.11", device: "lan0", weight: 2 }] }, ["route del 10.244.0.0/16 table 254 metric 0"]],
    ["linux.ipv6.route", "ensure", { table: 254, destination: "fd00:10:244::/56", metric: 1024, type: "unicast", nexthops: [{ gateway: "fd00::11", device: "lan0", weight: 1 }, { gateway: "fd00::12", device: "lan0", weight: 3 }] }, ["route replace fd00:10:244::/56 table 254 metric 1024 nexthop via fd00::11 dev lan0 weight 1 nexthop via fd00::12 dev lan0 weight 3"]],
    ["linux.ipv4.fwmarkRule", "ensure", { priority: 1101, mark: 0x101, table: 101 }, ["rule add priority 1101 fwmark 0x101 table 101"]],
    ["linux.ipv4.fwmarkRule", "remove", { priority: 1101, mark: 0x101, table: 101 }, ["rule del priority 1101 fwmark 0x101 table 101"]],
    ["linux.ipv4.fwmarkRule", "ensure", { priority: 1100, mark: 0x100, mask: 0x100, table: 254, suppressPrefixLength: 0 }, ["rule add priority 1100 fwmark 0x100/0x100 table 254 suppress_prefixlength 0"]],
  ] as const)("%s %s %j", (kind, op, attrs, lines) => {
    expect(IP_LINES[kind]![op](attrs)).toEqual(lines);
  });

  it("maps `Command failed -:N` back to the line and the error printed before it", () => {
    const stderr = "RTNETLINK answers: File exists\nCommand failed -:2\nError: Nexthop has invalid gateway.\nCommand failed -:5\n";
    expect([...failedBatchLines(stderr)]).toEqual([
      [2, "RTNETLINK answers: File exists"],
      [5, "Error: Nexthop has invalid gateway."],
    ]);
  });
});
