// The server stops answering: the client renews at T1, rebinds at T2, and when the valid lifetime runs
// out reports "expired" and goes back to Solicit; when the server returns it acquires again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientProcess, ensureBuilt, prefixesOf, type Json } from "./support/client.js";
import { Kea } from "./support/kea.js";
import { Lab } from "./support/lab.js";

const lab = new Lab("gone");
let kea: Kea;
let client: ClientProcess;

beforeAll(async () => {
  ensureBuilt();
  const isp = lab.netns("isp");
  const rtr = lab.netns("rtr");
  lab.veth(isp, "isp0", rtr, "wan0");
  kea = new Kea(lab, isp, {
    subnets: [{ id: 1, iface: "isp0", subnet: "2001:db8:1::/64", pdPrefix: "2001:db8:1000::", rapidCommit: true }],
    timers: { renew: 2, rebind: 4, preferred: 5, valid: 7 },
  });
  await kea.start();
  client = ClientProcess.start(lab, rtr, ["--interface", "wan0", "--state-dir", lab.path("client"), "--prefix-length", "56"]);
});

afterAll(async () => {
  await lab.cleanup();
});

describe("server gone", () => {
  let acquired: Json;
  let disabledAt = 0;

  it("renews, then rebinds, then expires the prefix when the server is silent", async () => {
    acquired = await client.waitForEvent("acquired");
    // Let one renew succeed so the timers count from a known reply.
    const renewed = await client.waitForEvent("renewed", 10_000);
    expect((await kea.command("dhcp-disable")).result).toBe(0);
    disabledAt = Date.now();
    const lastReply = renewed.receivedAt as number;
    const expired = await client.waitForEvent("expired", 20_000, { after: disabledAt });
    expect(expired.removed).toEqual(prefixesOf(acquired));
    // Valid lifetime 7 s from the last reply (allow for scheduling).
    expect((expired.receivedAt as number) - lastReply).toBeGreaterThanOrEqual(6500);
    const renews = client.transmitted("RENEW").filter((l) => (l.receivedAt as number) > lastReply);
    const rebinds = client.transmitted("REBIND").filter((l) => (l.receivedAt as number) > lastReply);
    expect(renews.length).toBeGreaterThanOrEqual(1);
    expect(rebinds.length).toBeGreaterThanOrEqual(1);
    expect(rebinds[0]!.receivedAt as number).toBeGreaterThan(renews[0]!.receivedAt as number);
    expect(client.events.filter((e) => (e.receivedAt as number) > lastReply).map((e) => e.event)).toEqual(["expired"]);
  });

  it("solicits again with the old prefix as hint and gets it back when the server returns", async () => {
    const expiredAt = client.events.find((e) => e.event === "expired")!.receivedAt as number;
    await client.waitForLog((l) => l.msg === "transmit" && l.message === "SOLICIT", "a Solicit after expiry", 10_000, expiredAt);
    expect((await kea.command("dhcp-enable")).result).toBe(0);
    // Solicit retransmits after 1, 2, 4 ... s: the next one reaches the server again.
    const again = await client.waitForEvent("acquired", 20_000, { after: expiredAt });
    expect(prefixesOf(again)).toEqual(prefixesOf(acquired));
    expect(await client.stop()).toBe(0);
  });
});
