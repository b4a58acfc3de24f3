import { describe, expect, it } from "vitest";
import { parseBgpConfig } from "../config/config.js";
import { announcedPath } from "../gobgp/codec.js";
import { adjInPaths, type PathAttrs } from "./attrs.js";
import { GracefulRestartTracker } from "./graceful.js";
import { communityValue, importFilter } from "./import-filter.js";
import { LocalRib, ribNeighbors } from "./local-rib.js";

const attrs = (nextHop: string, over: Partial<PathAttrs> = {}): PathAttrs => ({
  nextHop,
  localPref: undefined,
  asns: [65002],
  asPathLen: 1,
  origin: 0,
  med: 0,
  communities: [],
  ...over,
});

const config = (peers: unknown[], router: Record<string, unknown> = {}) =>
  parseBgpConfig({ router: { name: "edge", spec: { asn: 65001, routerID: "192.0.2.1", ...router } }, peers });

describe("Adj-RIB-In events → paths", () => {
  it("decodes one UPDATE's shared attributes once, IPv4 and IPv6, withdrawals without attributes", () => {
    const from = (p: ReturnType<typeof announcedPath>, neighbor: string) => ({ ...p, neighborIp: neighbor });
    const paths = adjInPaths([
      from(announcedPath("10.0.0.0/24", "192.0.2.2", [65002, 65010], [communityValue("65002:7")]), "192.0.2.2"),
      from(announcedPath("10.0.1.0/24", "192.0.2.2", [65002, 65010], [communityValue("65002:7")]), "192.0.2.2"),
      from(announcedPath("2001:db8::/32", "fd00::2", [65002]), "fd00::2"),
      from(announcedPath("2001:db8:1::/48", "fd00::3", [65002]), "fd00::2"),
      { ...from(announcedPath("10.0.2.0/24", "192.0.2.2"), "192.0.2.2"), isWithdraw: true },
    ]);
    expect(paths.map((p) => [p.prefix, p.attrs?.nextHop])).toEqual([
      ["10.0.0.0/24", "192.0.2.2"],
      ["10.0.1.0/24", "192.0.2.2"],
      ["2001:db8::/32", "fd00::2"],
      ["2001:db8:1::/48", "fd00::3"],
      ["10.0.2.0/24", undefined],
    ]);
    expect(paths[0]!.attrs).toBe(paths[1]!.attrs);
    expect(paths[0]!.attrs).toMatchObject({ asns: [65002, 65010], asPathLen: 2, communities: [communityValue("65002:7")] });
  });
});

describe("import policy for the FIB", () => {
  it("accepts everything by default, with local preference 100, and drops AS loops", () => {
    const f = importFilter("192.0.2.2", 65001, {});
    expect(f.nextHop("10.0.0.0/24", attrs("192.0.2.2"))).toBe("192.0.2.2");
    expect(f.localPref(attrs("192.0.2.2"))).toBe(100);
    expect(f.nextHop("10.0.0.0/24", attrs("192.0.2.2", { asns: [65002, 65001] }))).toBeUndefined();
  });

  it("rejects forbidden communities, prefixes outside the allowed ones or lengths, and missing required/accepted communities", () => {
    const f = importFilter("192.0.2.2", 65001, {
      import: { allowedPrefixes: ["172.31.0.0/16", "2001:db8::/32"], allowedPrefixLengthMax: 24, forbiddenCommunities: ["65002:666"], requiredCommunities: ["65002:1"] },
      communities: { accept: ["65002:1", "no-export"] },
    });
    const ok = attrs("192.0.2.2", { communities: [communityValue("65002:1")] });
    expect(f.nextHop("172.31.1.0/24", ok)).toBeDefined();
    expect(f.nextHop("172.31.3.128/25", ok)).toBeUndefined();
    expect(f.nextHop("10.1.0.0/24", ok)).toBeUndefined();
    expect(f.nextHop("172.31.0.0/16", ok)).toBeDefined();
    expect(f.nextHop("172.30.0.0/15", ok)).toBeUndefined();
    expect(f.nextHop("2001:db8:5::/48", ok)).toBeUndefined(); // longer than 24
    expect(f.nextHop("172.31.2.0/24", { ...ok, communities: [...ok.communities, communityValue("65002:666")] })).toBeUndefined();
    expect(f.nextHop("172.31.2.0/24", attrs("192.0.2.2"))).toBeUndefined();
    expect(communityValue("no-export")).toBe(0xffffff01);
  });

  it("applies the family rule and length bounds without allowed prefixes, local preference and next-hop rewrite", () => {
    const f = importFilter("fd00::2", 65001, { import: { allowedPrefixLengthMin: 16, allowedPrefixLengthMax: 48, localPreference: 250, nextHopRewrite: "peer-address" } });
    expect(f.nextHop("2001:db8::/32", attrs("fd00::99"))).toBe("fd00::2");
    expect(f.localPref(attrs("fd00::99"))).toBe(250);
    expect(f.nextHop("2001:db8::/64", attrs("fd00::99"))).toBeUndefined();
    expect(f.nextHop("10.0.0.0/8", attrs("192.0.2.9"))).toBeUndefined();
  });
});

describe("local RIB: best paths for the FIB", () => {
  const rib = () => {
    const r = new LocalRib();
    r.configure(
      ribNeighbors(
        config([
          { name: "isp", spec: { routerRef: "edge", peerASN: 65002, peers: ["10.91.0.2"], importPolicy: { forbiddenCommunities: ["65002:666"] } } },
          { name: "ix", spec: { routerRef: "edge", peerASN: 65003, peers: ["10.92.0.2"] } },
          { name: "core", spec: { routerRef: "edge", peerASN: 65001, peers: ["10.93.0.2"] } },
        ]),
      ),
      (p) => p === "192.168.77.0/24",
    );
    return r;
  };

  it("ECMP over equal paths of two neighbors; a better one wins alone; withdrawals fall back", () => {
    const r = rib();
    r.apply({ neighbor: "10.91.0.2", prefix: "10.9.0.0/24", attrs: attrs("10.91.0.2") });
    r.apply({ neighbor: "10.92.0.2", prefix: "10.9.0.0/24", attrs: attrs("10.92.0.2", { asns: [65003] }) });
    expect(r.best("10.9.0.0/24")).toBe("10.91.0.2,10.92.0.2");
    r.apply({ neighbor: "10.92.0.2", prefix: "10.9.0.0/24", attrs: attrs("10.92.0.2", { asns: [65003, 65010], asPathLen: 2 }) });
    expect(r.best("10.9.0.0/24")).toBe("10.91.0.2");
    r.apply({ neighbor: "10.91.0.2", prefix: "10.9.0.0/24", attrs: undefined });
    expect(r.best("10.9.0.0/24")).toBe("10.92.0.2");
    r.apply({ neighbor: "10.92.0.2", prefix: "10.9.0.0/24", attrs: undefined });
    expect(r.best("10.9.0.0/24")).toBe("");
    expect(r.size).toBe(0);
  });

  it("orders by local preference, AS path, origin, MED, then eBGP over iBGP", () => {
    const r = rib();
    const two = (a: Partial<PathAttrs>, b: Partial<PathAttrs>) => {
      r.apply({ neighbor: "10.91.0.2", prefix: "10.8.0.0/24", attrs: attrs("10.91.0.2", a) });
      r.apply({ neighbor: "10.93.0.2", prefix: "10.8.0.0/24", attrs: attrs("10.93.0.2", { asns: [], asPathLen: 0, ...b }) });
      return r.best("10.8.0.0/24");
    };
    expect(two({}, { localPref: 200 })).toBe("10.93.0.2");
    expect(two({}, {})).toBe("10.93.0.2"); // shorter AS path (iBGP: empty)
    expect(two({}, { asPathLen: 1, origin: 2 })).toBe("10.91.0.2");
    expect(two({ med: 10 }, { asPathLen: 1, med: 5 })).toBe("10.93.0.2");
    expect(two({}, { asPathLen: 1 })).toBe("10.91.0.2"); // eBGP before iBGP
  });

  it("rejected paths and own prefixes are never installed; a lost session takes its paths at once", () => {
    const r = rib();
    r.apply({ neighbor: "10.91.0.2", prefix: "10.7.0.0/24", attrs: attrs("10.91.0.2", { communities: [communityValue("65002:666")] }) });
    r.apply({ neighbor: "10.91.0.2", prefix: "192.168.77.0/24", attrs: attrs("10.91.0.2") });
    r.apply({ neighbor: "10.91.0.2", prefix: "10.6.0.0/24", attrs: attrs("10.91.0.2") });
    r.apply({ neighbor: "10.92.0.2", prefix: "10.6.0.0/24", attrs: attrs("10.92.0.2", { asns: [65003] }) });
    r.apply({ neighbor: "10.99.0.2", prefix: "10.5.0.0/24", attrs: attrs("10.99.0.2") }); // not a configured neighbor
    expect([r.best("10.7.0.0/24"), r.best("192.168.77.0/24"), r.best("10.5.0.0/24")]).toEqual(["", "", ""]);
    expect(r.hasPathsFrom("10.91.0.2")).toBe(true);
    expect(r.dropNeighbor("10.91.0.2").sort()).toEqual(["10.6.0.0/24", "10.7.0.0/24", "192.168.77.0/24"]);
    expect(r.hasPathsFrom("10.91.0.2")).toBe(false);
    expect(r.best("10.6.0.0/24")).toBe("10.92.0.2");
    expect([...r.neighborsNotIn(new Map([["10.92.0.2", 1]]))]).toEqual(["10.99.0.2"]);
  });

  it("graceful restart: stale paths stay until swept; re-announced ones survive the sweep", () => {
    const r = rib();
    r.apply({ neighbor: "10.91.0.2", prefix: "10.4.0.0/24", attrs: attrs("10.91.0.2") });
    r.apply({ neighbor: "10.91.0.2", prefix: "10.4.1.0/24", attrs: attrs("10.91.0.2") });
    expect(r.dropNeighbor("10.91.0.2", true)).toEqual([]);
    expect(r.best("10.4.0.0/24")).toBe("10.91.0.2");
    r.apply({ neighbor: "10.91.0.2", prefix: "10.4.0.0/24", attrs: attrs("10.91.0.2") });
    expect(r.sweepStale("10.91.0.2")).toEqual(["10.4.1.0/24"]);
    expect([r.best("10.4.0.0/24"), r.best("10.4.1.0/24")]).toEqual(["10.91.0.2", ""]);
  });
});

describe("graceful restart timing", () => {
  it("sweeps once the neighbor is back and quiet, or at the restart deadline, not before", () => {
    const swept: string[] = [];
    const g = new GracefulRestartTracker((n) => swept.push(n), 1000);
    g.down("a", 120_000, 0);
    g.down("b", 5_000, 0);
    g.down("b", 5_000, 3_000); // still restarting: the deadline stays
    g.up("a", 10);
    g.heard("a", 900);
    g.tick(1500);
    expect(swept).toEqual([]);
    g.tick(1900);
    expect(swept).toEqual(["a"]);
    g.tick(4999);
    expect(swept).toEqual(["a"]);
    g.tick(5000);
    expect(swept).toEqual(["a", "b"]);
    g.stop();
  });
});
