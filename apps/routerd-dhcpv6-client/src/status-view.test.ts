import { describe, expect, it } from "vitest";
import { daemonEvent, EVENT_TOPICS } from "./daemon-events.js";
import { INFINITY } from "./constants.js";
import type { Lease } from "./lease.js";
import { delegatedPrefixJson, HOLDING_PHASES, primaryPrefix, pruneWithdrawn, recordWithdrawn, statusPhase, WITHDRAWN_MAX_MS } from "./status-view.js";

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const info = { dnsServers: ["2001:db8::53"], domainSearch: ["example.net"], sntpServers: [] };
const lease = (prefixes: Array<[string, number, number, number]>): Lease => ({
  serverId: "00:01",
  updatedAt: T0,
  t1: 100,
  t2: 200,
  prefixes: prefixes.map(([prefix, length, preferredLifetime, validLifetime]) => ({ prefix, length, preferredLifetime, validLifetime, obtainedAt: T0 })),
  addresses: [],
  information: info,
});

describe("status phase", () => {
  it("names every engine phase; only bound, renew and rebind hold the prefix", () => {
    const held = (["init", "solicit", "request", "bound", "renew", "rebind", "release", "information", "informed", "idle", "stopped"] as const).filter((p) => HOLDING_PHASES.has(statusPhase(p)));
    expect(held).toEqual(["bound", "renew", "rebind"]);
    expect(statusPhase("idle")).toBe("Released");
    expect(statusPhase("solicit")).toBe("Soliciting");
  });
});

describe("the DelegatedPrefix details routerd core reads", () => {
  it("carries the prefix, its lifetimes, the absolute expiry and the server's DNS information", () => {
    expect(delegatedPrefixJson(lease([["2001:db8:1000::", 56, 30, 60]]), [], undefined)).toEqual({
      prefix: "2001:db8:1000::",
      prefixLength: 56,
      preferredLifetime: 30,
      validLifetime: 60,
      expiresAt: new Date(T0 + 60_000).toISOString(),
      dnsServers: ["2001:db8::53"],
      domainSearch: ["example.net"],
      sntpServers: [],
      prefixes: ["2001:db8:1000::/56"],
    });
  });

  it("carries SNTP servers and the AFTR name (option 64) only when the server sent them", () => {
    const plain = delegatedPrefixJson(lease([["2001:db8:1000::", 56, 30, 60]]), [], undefined)!;
    expect(Object.keys(plain)).not.toContain("aftrName");
    const withOptions = { ...lease([["2001:db8:1000::", 56, 30, 60]]), information: { ...info, sntpServers: ["2001:db8::123"], aftrName: "aftr.example" } };
    const d = delegatedPrefixJson(withOptions, [], undefined)!;
    expect([d.sntpServers, d.aftrName]).toEqual([["2001:db8::123"], "aftr.example"]);
  });

  it("picks the prefix that stays valid longest and lists withdrawn ones", () => {
    const l = lease([
      ["2001:db8:1000::", 56, 0, 10],
      ["2001:db8:2000::", 56, 30, 60],
    ]);
    expect(primaryPrefix(l)?.prefix).toBe("2001:db8:2000::");
    const d = delegatedPrefixJson(l, [{ prefix: "2001:db8:3000::", prefixLength: 56, until: T0 + 5000 }], undefined)!;
    expect(d.prefix).toBe("2001:db8:2000::");
    expect(d.withdrawn).toEqual([{ prefix: "2001:db8:3000::", prefixLength: 56, until: new Date(T0 + 5000).toISOString() }]);
  });

  it("gives an infinite lifetime a far-future ISO expiry instead of an invalid date", () => {
    const d = delegatedPrefixJson(lease([["2001:db8:1000::", 56, INFINITY, INFINITY]]), [], undefined)!;
    expect(Date.parse(d.expiresAt as string)).toBeGreaterThan(Date.UTC(9999, 0, 1));
  });

  it("has nothing to report without a prefix", () => {
    expect(delegatedPrefixJson(lease([]), [], undefined)).toBeUndefined();
  });
});

describe("withdrawn prefixes", () => {
  it("are kept until their last valid lifetime ends, at most 2 hours, and dropped when back in the binding", () => {
    const gone = lease([
      ["2001:db8:1000::", 56, 30, 60],
      ["2001:db8:2000::", 56, 86400, 86400],
    ]).prefixes;
    const list = recordWithdrawn([], gone, T0 + 1000);
    expect(list).toEqual([
      { prefix: "2001:db8:1000::", prefixLength: 56, until: T0 + 60_000 },
      { prefix: "2001:db8:2000::", prefixLength: 56, until: T0 + 1000 + WITHDRAWN_MAX_MS },
    ]);
    expect(pruneWithdrawn(list, undefined, T0 + 60_000).map((w) => w.prefix)).toEqual(["2001:db8:2000::"]);
    expect(pruneWithdrawn(list, lease([["2001:db8:2000::", 56, 30, 60]]), T0 + 2000).map((w) => w.prefix)).toEqual(["2001:db8:1000::"]);
  });

  it("ignores a prefix that had already run out", () => {
    expect(recordWithdrawn([], lease([["2001:db8:1000::", 56, 30, 60]]).prefixes, T0 + 61_000)).toEqual([]);
  });
});

describe("daemon events", () => {
  it("has a dhcpv6.prefix.* topic for every lease event", () => {
    expect(Object.values(EVENT_TOPICS).sort()).toEqual([
      "dhcpv6.information",
      "dhcpv6.prefix.acquired",
      "dhcpv6.prefix.changed",
      "dhcpv6.prefix.expired",
      "dhcpv6.prefix.lost",
      "dhcpv6.prefix.released",
      "dhcpv6.prefix.renewed",
    ]);
  });

  it("flattens a change into string attributes", () => {
    const e = daemonEvent({ type: "changed", added: ["2001:db8:2000::/56"], removed: ["2001:db8:1000::/56"], lease: lease([["2001:db8:2000::", 56, 30, 60]]) });
    expect(e.topic).toBe("dhcpv6.prefix.changed");
    expect(e.attributes).toMatchObject({ prefixes: "2001:db8:2000::/56", added: "2001:db8:2000::/56", removed: "2001:db8:1000::/56", validLifetime: "60" });
    expect(Object.values(e.attributes).every((v) => typeof v === "string")).toBe(true);
  });
});
