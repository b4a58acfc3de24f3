import { describe, expect, it } from "vitest";
import type { DhcpLease } from "./lease.js";
import { LeaseTransactions } from "./lease-trace.js";

const lease = { address: "192.0.2.10", prefixLength: 24, serverId: "192.0.2.1", leaseTime: 3600 } as DhcpLease;

describe("LeaseTransactions", () => {
  it("DISCOVER to ACK is one dhcpv4.acquire span with a child per phase passed", () => {
    let t = 0;
    const tx = new LeaseTransactions("wan", () => t);
    expect(tx.change("idle", "init", null)).toBeUndefined();
    t = 5;
    expect(tx.change("init", "selecting", null)).toBeUndefined();
    t = 40;
    expect(tx.change("selecting", "requesting", null)).toBeUndefined();
    t = 60;
    expect(tx.change("requesting", "bound", lease)).toEqual({
      name: "dhcpv4.acquire",
      start: 0,
      end: 60,
      attributes: { "routerd.instance": "wan", "dhcpv4.from": "idle", "dhcpv4.address": "192.0.2.10/24", "dhcpv4.server": "192.0.2.1", "dhcpv4.lease_time": 3600 },
      children: [
        { name: "init", start: 0, end: 5 },
        { name: "selecting", start: 5, end: 40 },
        { name: "requesting", start: 40, end: 60 },
      ],
    });
  });

  it("a renew that falls back to rebinding and loses the lease ends with an error", () => {
    let t = 100;
    const tx = new LeaseTransactions("wan", () => t);
    expect(tx.change("bound", "bound", lease)).toBeUndefined();
    tx.change("bound", "renewing", lease);
    t = 200;
    tx.change("renewing", "rebinding", lease);
    t = 300;
    expect(tx.change("rebinding", "idle", null)).toMatchObject({ name: "dhcpv4.renew", start: 100, end: 300, error: "ended in idle", children: [{ name: "renewing" }, { name: "rebinding" }] });
    // Released while bound: no transaction.
    expect(tx.change("bound", "idle", null)).toBeUndefined();
  });
});
