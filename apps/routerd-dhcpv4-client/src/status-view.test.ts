import { leaseRoutes, type Dhcpv4Lease } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { leaseFromAck } from "./lease.js";
import { MessageType } from "./options.js";
import { EVENT_TOPICS, daemonEvent, dhcpv4LeaseJson, resourcePhase } from "./status-view.js";
import { reply } from "./test-support/replies.js";

const T0 = Date.parse("2026-01-02T03:04:05.000Z");

function ack(extra: Parameters<typeof reply>[0] extends infer S ? Partial<S> : never) {
  const r = leaseFromAck(reply({ type: MessageType.Ack, xid: 1, yiaddr: "192.0.2.9", leaseTime: 600, mask: "255.255.255.0", routers: ["192.0.2.1"], ...extra }), T0);
  if (!r.ok) throw new Error(r.error);
  return r.lease;
}

describe("lease details routerd core reads", () => {
  it("are the Dhcpv4Lease contract, with option 121 routes as CIDR destinations", () => {
    const lease = ack({
      dns: ["192.0.2.53"],
      domain: "isp.test",
      classless: [
        { destination: "198.51.100.0", prefixLength: 24, gateway: "192.0.2.2" },
        { destination: "0.0.0.0", prefixLength: 0, gateway: "192.0.2.1" },
      ],
    });
    const json = dhcpv4LeaseJson(lease);
    const contract: Dhcpv4Lease = json as unknown as Dhcpv4Lease;
    expect(contract).toMatchObject({
      address: "192.0.2.9",
      prefixLength: 24,
      routers: ["192.0.2.1"],
      dnsServers: ["192.0.2.53"],
      domain: "isp.test",
      serverId: "192.0.2.1",
      expiresAt: new Date(T0 + 600_000).toISOString(),
    });
    // The core's own route derivation gives what the server asked for (RFC 3442: 121 wins over 3).
    expect(leaseRoutes(contract)).toEqual([
      { destination: "198.51.100.0/24", gateway: "192.0.2.2" },
      { destination: "0.0.0.0/0", gateway: "192.0.2.1" },
    ]);
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it("fall back to a default route via option 3 and report an infinite lease as the far future", () => {
    const lease = ack({ leaseTime: 0xffffffff });
    const json = dhcpv4LeaseJson(lease) as unknown as Dhcpv4Lease;
    expect(leaseRoutes(json)).toEqual([{ destination: "0.0.0.0/0", gateway: "192.0.2.1" }]);
    expect(Date.parse(json.expiresAt)).toBeGreaterThan(Date.parse("9999-01-01T00:00:00Z"));
    expect(json.domain).toBeUndefined();
  });
});

describe("resource phase", () => {
  it("holds only bound, renewing and rebinding, and a stored lease under INIT-REBOOT until it runs out", () => {
    const lease = ack({});
    expect(resourcePhase("bound", lease, T0)).toBe("Bound");
    expect(resourcePhase("renewing", lease, T0)).toBe("Renewing");
    expect(resourcePhase("rebinding", lease, T0)).toBe("Rebinding");
    expect(resourcePhase("rebooting", lease, T0 + 599_000)).toBe("Rebinding");
    expect(resourcePhase("rebooting", lease, T0 + 600_000)).toBe("Rebooting");
    expect(resourcePhase("selecting", null, T0)).toBe("Selecting");
    expect(resourcePhase("idle", null, T0)).toBe("Released");
    expect(resourcePhase("init", null, T0)).toBe("Init");
  });
});

describe("daemon events", () => {
  it("carry the lease as JSON and flat attributes, one topic per lease event", () => {
    const lease = ack({});
    const e = daemonEvent({ type: "bound", lease, resumed: true });
    expect(e).toMatchObject({ topic: "dhcpv4.lease.bound", severity: "info", attributes: { address: "192.0.2.9", prefixLength: "24", serverId: "192.0.2.1", leaseTime: "600", resumed: "true" } });
    expect(JSON.parse(e.attributes.lease!)).toEqual(dhcpv4LeaseJson(lease));
    expect(e.message).toBe("bound 192.0.2.9/24 from 192.0.2.1 (stored lease, server did not answer)");
    const lost = daemonEvent({ type: "lost", lease, reason: "nak" });
    expect(lost).toMatchObject({ topic: "dhcpv4.lease.lost", severity: "warning", attributes: { reason: "nak" } });
    const nak = daemonEvent({ type: "nak", serverId: "192.0.2.1", reason: "wrong network" });
    expect(nak).toEqual({ topic: "dhcpv4.lease.nak", severity: "warning", message: "nak from 192.0.2.1 (wrong network)", attributes: { serverId: "192.0.2.1", reason: "wrong network" } });
    expect(Object.values(EVENT_TOPICS).every((t) => t.startsWith("dhcpv4.lease."))).toBe(true);
  });
});
