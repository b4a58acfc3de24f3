import { describe, expect, it } from "vitest";
import { IP_LINES } from "./ip-lines.js";

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
const at = (s: number) => new Date(NOW + s * 1000).toISOString();

describe("ip -batch lines for IPv6", () => {
  it.each([
    [
      "linux.ipv6.address",
      "ensure",
      { ifname: "lan0", address: "2001:db8:1000:1::1", prefixLength: 64, validUntil: at(60), preferredUntil: at(30) },
      ["address replace 2001:db8:1000:1::1/64 dev lan0 valid_lft 60 preferred_lft 30"],
    ],
    ["linux.ipv6.address", "ensure", { ifname: "lan0", address: "2001:db8::1", prefixLength: 64 }, ["address replace 2001:db8::1/64 dev lan0 valid_lft forever preferred_lft forever"]],
    // Past its preferred time the address is deprecated (0), not made preferred again for a second.
    ["linux.ipv6.address", "ensure", { ifname: "lan0", address: "2001:db8::1", prefixLength: 64, validUntil: at(20), preferredUntil: at(-9) }, ["address replace 2001:db8::1/64 dev lan0 valid_lft 20 preferred_lft 0"]],
    // A lease that ran out is not put back even for a second: the lease's owner removes the address next.
    ["linux.ipv6.address", "ensure", { ifname: "lan0", address: "2001:db8::1", prefixLength: 64, validUntil: at(-5), preferredUntil: at(-9) }, []],
    ["linux.ipv6.address", "remove", { ifname: "lan0", address: "2001:db8::1", prefixLength: 64, validUntil: at(60) }, ["address del 2001:db8::1/64 dev lan0"]],
    ["linux.ipv6.route", "ensure", { table: 254, destination: "2001:db8:1000::/56", metric: 2048, type: "unreachable" }, ["route replace unreachable 2001:db8:1000::/56 table 254 metric 2048"]],
    ["linux.ipv6.route", "ensure", { table: 254, destination: "::/0", metric: 1024, type: "unicast", gateway: "fe80::1", device: "wan0" }, ["route replace ::/0 via fe80::1 dev wan0 table 254 metric 1024"]],
    ["linux.ipv6.route", "remove", { table: 254, destination: "2001:db8:1000::/56", metric: 2048, type: "unreachable" }, ["route del unreachable 2001:db8:1000::/56 table 254 metric 2048"]],
  ] as const)("%s %s %j", (kind, op, attrs, lines) => {
    expect(op === "ensure" ? IP_LINES[kind]!.ensure(attrs, NOW) : IP_LINES[kind]!.remove(attrs)).toEqual(lines);
  });
});
