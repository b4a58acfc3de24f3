// routerd-bgp's netlink FIB writer (native/netlink-route.c + src/fib/netlink-encode.ts) against the kernel,
// in a namespace of this file's own: IPv4 and IPv6 routes, ECMP, a table above 255, replace and delete in
// chunks in flight together, and a write the kernel refuses (its prefix reported, the rest applied). The
// built code runs in the namespace (fib-writer-child.mjs); `ip -j route show` is the judge.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Netns, REPO } from "../lib/netns.js";

let ns: Netns;
const CHILD = join(REPO, "test-e2e/bgp/fib-writer-child.mjs");
const T = { protocol: 219, table: 1000, metric: 20 };

function run(job: object, env: NodeJS.ProcessEnv = process.env) {
  const r = ns.exec(process.execPath, [CHILD, JSON.stringify(job)], { env });
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { kind: string; results?: [number, string][][]; stats?: Record<string, unknown> };
}

interface JsonRoute {
  dst: string;
  gateway?: string;
  metric?: number;
  protocol?: string;
  nexthops?: { gateway: string }[];
}

/** prefix → sorted next hops, as the kernel holds them in table T with protocol 219 */
function kernel(family: "-4" | "-6", table = T.table): Record<string, string> {
  const routes = JSON.parse(ns.ip(`-j ${family} route show table ${table} proto 219`).stdout) as JsonRoute[];
  const out: Record<string, string> = {};
  for (const r of routes) {
    expect(r.metric).toBe(20);
    out[r.dst] = (r.nexthops?.map((h) => h.gateway) ?? [r.gateway!]).sort().join(",");
  }
  return out;
}

beforeAll(() => {
  ns = Netns.create("rbn");
  ns.veth("bgn0", "bgn1");
  ns.ip("addr add 10.93.0.1/24 dev bgn0");
  ns.ip("addr add fd93::1/64 dev bgn0 nodad");
  ns.ip("link set bgn0 up");
  ns.ip("link set bgn1 up");
});

afterAll(() => ns?.destroy());

describe("the netlink FIB writer", () => {
  it("writes IPv4 and IPv6 routes, single next hop and ECMP, in a table above 255, with chunks in flight together", () => {
    const first = [
      ["replace", "10.200.0.0/24", "10.93.0.2"],
      ["replace", "10.200.1.0/24", "10.93.0.2,10.93.0.3"],
      ["replace", "192.0.2.7/32", "10.93.0.4"],
      ["replace", "0.0.0.0/0", "10.93.0.2"],
      ["replace", "2001:db8:93::/48", "fd93::2"],
      ["replace", "2001:db8:94::/48", "fd93::2,fd93::3"],
    ];
    // The second chunk changes what the first wrote: it must apply after it.
    const second = [
      ["replace", "10.200.1.0/24", "10.93.0.3"],
      ["replace", "10.200.0.0/24", "10.93.0.2,10.93.0.4"],
      ["delete", "2001:db8:93::/48", 20],
      ["replace", "2001:db8:94::/48", "fd93::3"],
    ];
    const out = run({ writer: { target: T, chunks: [first, second] } });
    expect(out.kind).toBe("netlink");
    expect(out.results).toEqual([[], []]);
    expect(kernel("-4")).toEqual({ default: "10.93.0.2", "10.200.0.0/24": "10.93.0.2,10.93.0.4", "10.200.1.0/24": "10.93.0.3", "192.0.2.7": "10.93.0.4" });
    expect(kernel("-6")).toEqual({ "2001:db8:94::/48": "fd93::3" });
  });

  it("reports each refused write by its index and applies the rest", () => {
    const out = run({
      writer: {
        target: T,
        chunks: [
          [
            ["replace", "10.201.0.0/24", "10.93.0.2"],
            ["replace", "10.201.1.0/24", "10.77.0.2"], // no link to that gateway
            ["replace", "10.201.2.0/24", "fd93::2"], // a next hop of the other family: ip refuses it too
            ["delete", "10.201.3.0/24", 20], // nothing to delete
            ["replace", "2001:db8:95::/48", "fd93::2"],
          ],
        ],
      },
    });
    expect(out.results![0]).toEqual([
      [2, 'Error: inet address is expected rather than "fd93::2".'],
      [1, "Error: Nexthop has invalid gateway."],
      [3, "RTNETLINK answers: No such process"],
    ]);
    expect(kernel("-4")["10.201.0.0/24"]).toBe("10.93.0.2");
    expect(kernel("-4")["10.201.1.0/24"]).toBeUndefined();
    expect(kernel("-6")["2001:db8:95::/48"]).toBe("fd93::2");
  });

  it("through the programmer: the failing prefix is named, the others installed; ROUTERD_BGP_FIB_WRITER=ip gives the same", () => {
    const routes = [
      ["10.202.0.0/24", "10.93.0.2"],
      ["10.202.1.0/24", "10.77.0.2"],
      ["10.202.2.0/24", "10.93.0.2,10.93.0.3"],
      ["2001:db8:96::/48", "fd93::2,fd93::3"],
    ];
    for (const [writer, table] of [["netlink", 2000], ["ip", 2001]] as const) {
      // The kernel dumps only a table that exists (the daemon's start reads it): a route of another protocol makes it.
      ns.ip(`route add unreachable 203.0.113.0/24 table ${table}`);
      ns.ip(`-6 route add unreachable 2001:db8:ffff::/48 table ${table}`);
      const out = run({ programmer: { target: { ...T, table }, routes } }, { ...process.env, ROUTERD_BGP_FIB_WRITER: writer });
      expect(out.kind).toBe(writer);
      expect(out.stats).toMatchObject({ installed: 3, failures: 1, lastError: { prefix: "10.202.1.0/24", error: "Error: Nexthop has invalid gateway." } });
      expect(kernel("-4", table)).toEqual({ "10.202.0.0/24": "10.93.0.2", "10.202.2.0/24": "10.93.0.2,10.93.0.3" });
      expect(kernel("-6", table)).toEqual({ "2001:db8:96::/48": "fd93::2,fd93::3" });
    }
  });
});
