import { describe, expect, it } from "vitest";
import { eventJson } from "./event-json.js";
import { mergeReply, pruneExpired, readIa, type IaView, type Lease } from "./lease.js";
import { iaPd } from "./testing/fsm-sim.js";

const NOW = 1_800_000_000_000;

function pd(prefixes: Array<[string, number, number]>, t1 = 100, t2 = 200): IaView {
  return readIa([iaPd(prefixes.map(([prefix, preferred, valid]) => ({ prefix, preferred, valid })), { t1, t2 })], "ia-pd", 1)!;
}

const info = { dnsServers: [], domainSearch: [], sntpServers: [] };

describe("mergeReply (RFC 8415 §18.2.10.1)", () => {
  it("adds, updates, discards lifetime-0 leases and keeps unmentioned ones", () => {
    const first = mergeReply(undefined, { serverId: "aa", ias: [pd([["2001:db8:1::", 300, 600], ["2001:db8:2::", 300, 600]])], information: info }, NOW);
    expect(first.change).toBe("acquired");
    const next = mergeReply(first.lease, { serverId: "aa", ias: [pd([["2001:db8:1::", 0, 0], ["2001:db8:3::", 400, 800]])], information: info }, NOW + 1000);
    expect(next.change).toBe("changed");
    expect(next.added).toEqual(["2001:db8:3::/56"]);
    expect(next.removed).toEqual(["2001:db8:1::/56"]);
    expect(next.lease.prefixes.map((p) => [p.prefix, p.obtainedAt])).toEqual([
      ["2001:db8:2::", NOW],
      ["2001:db8:3::", NOW + 1000],
    ]);
  });

  it("says renewed when only lifetimes change and lost when all are withdrawn", () => {
    const a = mergeReply(undefined, { serverId: "aa", ias: [pd([["2001:db8:1::", 300, 600]])], information: info }, NOW);
    expect(mergeReply(a.lease, { serverId: "aa", ias: [pd([["2001:db8:1::", 30, 60]])], information: info }, NOW).change).toBe("renewed");
    expect(mergeReply(a.lease, { serverId: "aa", ias: [pd([["2001:db8:1::", 0, 0]])], information: info }, NOW).change).toBe("lost");
  });

  it("takes the smallest T1/T2 across IAs and handles infinity", () => {
    const r = mergeReply(undefined, { serverId: "aa", ias: [pd([["2001:db8:1::", 0xffffffff, 0xffffffff]], 0, 0)], information: info }, NOW);
    expect([r.lease.t1, r.lease.t2]).toEqual([0xffffffff, 0xffffffff]);
  });

  it("prunes expired leases by their own obtainedAt", () => {
    const lease: Lease = {
      serverId: "aa", updatedAt: NOW, t1: 1, t2: 2, addresses: [], information: info,
      prefixes: [
        { prefix: "2001:db8:1::", length: 56, preferredLifetime: 5, validLifetime: 10, obtainedAt: NOW },
        { prefix: "2001:db8:2::", length: 56, preferredLifetime: 5, validLifetime: 10, obtainedAt: NOW + 5000 },
      ],
    };
    const r = pruneExpired(lease, NOW + 10_000);
    expect(r.removed).toEqual(["2001:db8:1::/56"]);
    expect(r.lease.prefixes).toHaveLength(1);
  });
});

describe("event JSON", () => {
  it("prints prefixes as addr/len with absolute expiry", () => {
    const r = mergeReply(undefined, { serverId: "aa", serverAddress: "fe80::1%wan0", ias: [pd([["2001:db8:1::", 300, 600]])], information: info }, NOW);
    expect(eventJson({ type: "acquired", lease: r.lease }, "wan0", NOW)).toEqual({
      event: "acquired",
      interface: "wan0",
      time: new Date(NOW).toISOString(),
      prefixes: [{ prefix: "2001:db8:1::/56", preferredLifetime: 300, validLifetime: 600, validUntil: new Date(NOW + 600_000).toISOString() }],
      addresses: [],
      t1: 100,
      t2: 200,
      server: { duid: "aa", address: "fe80::1%wan0" },
      information: info,
    });
  });
});
