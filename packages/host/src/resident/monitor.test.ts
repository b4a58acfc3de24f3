import { describe, expect, it } from "vitest";
import { monitorCommand, topicsOfLine, MONITOR_ARGV } from "./monitor.js";

describe("topicsOfLine", () => {
  // Lines as iproute2 6.1 prints them with `ip -o monitor label link address route rule`.
  it.each([
    ["[LINK]3: v0@v1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP group default \\    link/ether 56:dc:b0:e7:2f:b1 brd ff:ff:ff:ff:ff:ff", ["link"]],
    ["[ADDR]3: v0    inet 10.9.0.1/24 scope global v0\\       valid_lft forever preferred_lft forever", ["ipv4.address"]],
    ["[ADDR]Deleted 3: v0    inet6 2001:db8::1/64 scope global nodad \\       valid_lft forever preferred_lft forever", ["ipv6.address"]],
    ["[ROUTE]10.8.0.0/24 via 10.9.0.2 dev v0 ", ["ipv4.route"]],
    ["[ROUTE]Deleted local 10.9.0.1 dev v0 table local proto kernel scope host src 10.9.0.1 ", ["ipv4.route"]],
    ["[ROUTE]fe80::/64 dev v1 proto kernel metric 256 pref medium", ["ipv6.route"]],
    ["[ROUTE]default dev v0 metric 1024 linkdown pref medium", ["ipv6.route"]],
    ["[ROUTE]default dev ppp0 scope link ", ["ipv4.route", "ipv6.route"]],
    ["[RULE]1101:\tfrom all fwmark 0x101 lookup 101", ["rule"]],
  ])("%s", (line, topics) => {
    expect(topicsOfLine(line)).toEqual(topics);
  });

  it("names every topic for a line it cannot place, and none for an empty one", () => {
    expect(topicsOfLine("[NSID]something new")).toHaveLength(6);
    expect(topicsOfLine("unlabelled")).toHaveLength(6);
    expect(topicsOfLine("")).toEqual([]);
  });
});

describe("monitorCommand", () => {
  it("runs ip under setpriv --pdeathsig where setpriv is on the PATH, plain ip otherwise", () => {
    expect(monitorCommand("/nonexistent")).toEqual({ command: "ip", argv: [...MONITOR_ARGV] });
    const withSetpriv = monitorCommand(process.env.PATH);
    if (withSetpriv.command === "setpriv") expect(withSetpriv.argv).toEqual(["--pdeathsig", "KILL", "ip", ...MONITOR_ARGV]);
    else expect(withSetpriv.command).toBe("ip");
  });
});
