import { describe, expect, it } from "vitest";
import { canonicalPrefix, deleteLine, nextHopKey, parseRouteLine, replaceLine } from "./lines.js";

const T = { protocol: 219, table: 254, metric: 20 };

describe("FIB lines", () => {
  it("writes one next hop as via, several as an ECMP nexthop list", () => {
    expect(replaceLine("10.0.0.0/24", "192.0.2.2", T)).toBe("route replace 10.0.0.0/24 proto 219 metric 20 table 254 via 192.0.2.2");
    expect(replaceLine("2001:db8::/32", nextHopKey(["fd00::3", "fd00::2", "fd00::3"]), T)).toBe(
      "route replace 2001:db8::/32 proto 219 metric 20 table 254 nexthop via fd00::2 nexthop via fd00::3",
    );
    expect(deleteLine("10.0.0.0/24", T, 30)).toBe("route del 10.0.0.0/24 proto 219 metric 30 table 254");
  });

  it("reads back what ip -o route show prints, ECMP and host routes included", () => {
    expect(parseRouteLine("10.1.0.0/16 via 10.99.0.2 dev bgs0 metric 20 ", false)).toEqual({ prefix: "10.1.0.0/16", hops: "10.99.0.2", metric: 20 });
    expect(parseRouteLine("10.2.0.0/16 metric 20 \\tnexthop via 10.99.0.3 dev a weight 1 \\tnexthop via 10.99.0.2 dev b weight 1 ", false)).toEqual({
      prefix: "10.2.0.0/16",
      hops: "10.99.0.2,10.99.0.3",
      metric: 20,
    });
    expect(parseRouteLine("192.0.2.7 via 10.99.0.2 dev bgs0 metric 20", false)?.prefix).toBe("192.0.2.7/32");
    expect(parseRouteLine("default via fd99::2 dev bgs0 metric 20 pref medium", true)?.prefix).toBe("::/0");
    expect(parseRouteLine("blackhole 10.9.0.0/16 metric 20", false)).toBeUndefined();
    expect(canonicalPrefix("2001:db8::1", true)).toBe("2001:db8::1/128");
  });
});

describe("ip monitor lines", async () => {
  const { parseMonitorLine } = await import("./monitor.js");
  it("keeps changes of our protocol in our table only", () => {
    expect(parseMonitorLine("Deleted 172.31.1.0/24 via 10.91.0.2 dev bgi0 proto 219 metric 20 ", T)).toEqual({ deleted: true, route: { prefix: "172.31.1.0/24", hops: "10.91.0.2", metric: 20 } });
    expect(parseMonitorLine("2001:db8::/32 via fd91::2 dev bgi0 proto 219 metric 20 pref medium", T)?.route.prefix).toBe("2001:db8::/32");
    expect(parseMonitorLine("172.31.200.0/24 via 10.91.0.2 dev bgi0 proto 4 ", T)).toBeUndefined();
    expect(parseMonitorLine("172.31.1.0/24 via 10.91.0.2 dev bgi0 table 100 proto 219 metric 20", T)).toBeUndefined();
  });
});
