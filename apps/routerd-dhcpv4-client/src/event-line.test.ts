import { describe, expect, it } from "vitest";
import { eventLine } from "./event-line.js";
import { leaseFromAck } from "./lease.js";
import { MessageType } from "./options.js";
import { reply } from "./test-support/replies.js";

const r = leaseFromAck(reply({ type: MessageType.Ack, xid: 1, yiaddr: "192.0.2.9", leaseTime: 60, mask: "255.255.255.0", routers: ["192.0.2.1"] }), 0);
if (!r.ok) throw new Error(r.error);
const lease = r.lease;
const at = new Date("2026-01-02T03:04:05.000Z");

describe("event lines", () => {
  it("prints one JSON object with the lease", () => {
    const line = eventLine({ type: "bound", lease }, "wan0", true, at);
    expect(line).not.toContain("\n");
    expect(JSON.parse(line)).toEqual({ event: "bound", interface: "wan0", time: "2026-01-02T03:04:05.000Z", lease: JSON.parse(JSON.stringify(lease)) });
  });

  it("prints a readable text line", () => {
    expect(eventLine({ type: "bound", lease }, "wan0", false)).toBe("bound wan0 192.0.2.9/24 server 192.0.2.1 gateway 192.0.2.1 lease 60s");
    expect(eventLine({ type: "nak", serverId: "192.0.2.1", reason: "wrong network" }, "wan0", false)).toBe("nak wan0 server 192.0.2.1 (wrong network)");
    expect(eventLine({ type: "lost", lease, reason: "expired" }, "wan0", false)).toBe("lost wan0 192.0.2.9/24 server 192.0.2.1 (expired)");
  });
});
