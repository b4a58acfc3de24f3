import { describe, expect, it } from "vitest";
import { INFINITE_LEASE, effectiveRoutes, leaseFromAck, leaseTimers, parseStoredLease } from "./lease.js";
import { MessageType, Opt } from "./options.js";
import { reply } from "./test-support/replies.js";

describe("lease from ACK", () => {
  it("prefers classless static routes (121) over routers (3), RFC 3442 §3", () => {
    const ack = reply({
      type: MessageType.Ack,
      xid: 1,
      yiaddr: "198.51.100.7",
      leaseTime: 600,
      mask: "255.255.255.192",
      routers: ["198.51.100.1"],
      classless: [
        { destination: "203.0.113.0", prefixLength: 24, gateway: "198.51.100.2" },
        { destination: "0.0.0.0", prefixLength: 0, gateway: "198.51.100.3" },
      ],
    });
    const r = leaseFromAck(ack, 1000);
    if (!r.ok) throw new Error(r.error);
    expect(r.lease.routers).toEqual(["198.51.100.1"]);
    expect(r.lease.routes).toEqual([
      { destination: "203.0.113.0", prefixLength: 24, gateway: "198.51.100.2" },
      { destination: "0.0.0.0", prefixLength: 0, gateway: "198.51.100.3" },
    ]);
    expect(r.lease.prefixLength).toBe(26);
  });

  it("uses the first router as default route without option 121, and none without either", () => {
    expect(effectiveRoutes(["192.0.2.1", "192.0.2.2"], [])).toEqual([{ destination: "0.0.0.0", prefixLength: 0, gateway: "192.0.2.1" }]);
    expect(effectiveRoutes([], [])).toEqual([]);
  });

  it("falls back to the classful mask when the mask is missing or not contiguous", () => {
    const noMask = leaseFromAck(reply({ type: MessageType.Ack, xid: 1, yiaddr: "10.1.2.3", leaseTime: 60 }), 0);
    const holes = leaseFromAck(reply({ type: MessageType.Ack, xid: 1, yiaddr: "172.16.2.3", leaseTime: 60, mask: "255.0.255.0" }), 0);
    expect(noMask.ok && noMask.lease.prefixLength).toBe(8);
    expect(holes.ok && holes.lease.prefixLength).toBe(16);
  });

  it("reads MTU, domain and NTP, drops an MTU below 68", () => {
    const ok = leaseFromAck(
      reply({ type: MessageType.Ack, xid: 1, yiaddr: "192.0.2.9", leaseTime: 60, domain: "isp.test", extra: [[Opt.InterfaceMtu, Uint8Array.of(5, 0xd4)], [Opt.NtpServers, Uint8Array.of(192, 0, 2, 123)]] }),
      0,
    );
    const low = leaseFromAck(reply({ type: MessageType.Ack, xid: 1, yiaddr: "192.0.2.9", leaseTime: 60, extra: [[Opt.InterfaceMtu, Uint8Array.of(0, 60)]] }), 0);
    expect(ok.ok && [ok.lease.mtu, ok.lease.domainName, ok.lease.ntpServers]).toEqual([1492, "isp.test", ["192.0.2.123"]]);
    expect(low.ok && low.lease.mtu).toBeUndefined();
  });

  it("refuses an ACK without a usable address or server id", () => {
    expect(leaseFromAck(reply({ type: MessageType.Ack, xid: 1, leaseTime: 60 }), 0)).toEqual({ ok: false, error: "ACK without a usable yiaddr" });
    expect(leaseFromAck(reply({ type: MessageType.Ack, xid: 1, yiaddr: "192.0.2.9", serverId: null }), 0)).toEqual({
      ok: false,
      error: "ACK without a server identifier",
    });
  });

  it("computes absolute timers from the request time and none for infinite leases", () => {
    const r = leaseFromAck(reply({ type: MessageType.Ack, xid: 1, yiaddr: "192.0.2.9", leaseTime: 100 }), 5000);
    expect(r.ok && [r.lease.renewAt, r.lease.rebindAt, r.lease.expiresAt]).toEqual([55_000, 92_000, 105_000]);
    const inf = leaseFromAck(reply({ type: MessageType.Ack, xid: 1, yiaddr: "192.0.2.9", leaseTime: INFINITE_LEASE }), 5000);
    expect(inf.ok && [inf.lease.renewAt, inf.lease.rebindAt, inf.lease.expiresAt]).toEqual([null, null, null]);
  });
});

describe("T1/T2 sanity (RFC 2131 §4.4.5)", () => {
  it.each([
    [{ lease: 1000, t1: undefined, t2: undefined }, { renewalTime: 500, rebindingTime: 875 }],
    [{ lease: 1000, t1: 100, t2: 200 }, { renewalTime: 100, rebindingTime: 200 }],
    [{ lease: 1000, t1: 900, t2: 800 }, { renewalTime: 500, rebindingTime: 800 }],
    [{ lease: 1000, t1: 100, t2: 1000 }, { renewalTime: 100, rebindingTime: 875 }],
    [{ lease: 1000, t1: 0, t2: 0 }, { renewalTime: 500, rebindingTime: 875 }],
  ])("%o gives %o", (given, want) => {
    expect(leaseTimers(given.lease, given.t1, given.t2)).toEqual(want);
  });
});

describe("stored lease validation", () => {
  it("accepts what leaseFromAck produced and refuses damaged records", () => {
    const r = leaseFromAck(reply({ type: MessageType.Ack, xid: 1, yiaddr: "192.0.2.9", leaseTime: 60, routers: ["192.0.2.1"] }), 0);
    if (!r.ok) throw new Error(r.error);
    const roundTrip = JSON.parse(JSON.stringify(r.lease)) as unknown;
    expect(parseStoredLease(roundTrip)).toEqual(r.lease);
    expect(parseStoredLease({ ...r.lease, address: "999.1.1.1" })).toBeUndefined();
    expect(parseStoredLease({ ...r.lease, routes: [{ destination: "0.0.0.0", prefixLength: 40, gateway: "192.0.2.1" }] })).toBeUndefined();
    expect(parseStoredLease({ ...r.lease, expiresAt: "soon" })).toBeUndefined();
    expect(parseStoredLease(null)).toBeUndefined();
  });
});
