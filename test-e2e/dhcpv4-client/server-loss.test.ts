// The ISP's server goes away: RENEWING and REBINDING go unanswered, the lease expires (dnsmasq's shortest
// lease is 2 minutes, so this file takes a little over 2 minutes), the client reports the loss and keeps
// discovering until a server is back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Lab } from "./netns.js";
import { ClientProcess, Dnsmasq, ensureBuilt } from "./peers.js";
import { FAST_CLIENT_ARGS, addWan, type Wan } from "./topology.js";

const lab = new Lab("d4loss");
let wan: Wan;
let router: string;

const dnsmasqOptions = (): Parameters<typeof Dnsmasq.start>[1] => ({
  ns: wan.isp,
  iface: wan.ispIf,
  range: "10.77.0.100,10.77.0.150,2m",
  leaseFile: lab.path("isp.leases"),
  extra: ["--dhcp-option=option:T1,5", "--dhcp-option=option:T2,10"],
});

beforeAll(() => {
  ensureBuilt();
  router = lab.netns("rtr");
  wan = addWan(lab, router, "isp", "10.77.0");
});

afterAll(async () => {
  await lab.cleanup();
});

describe("losing the DHCP server", () => {
  it("rebinds at T2, reports expired and lost at the end of the lease, then rediscovers", { timeout: 240_000 }, async () => {
    const server = await Dnsmasq.start(lab, dnsmasqOptions());
    const client = ClientProcess.start(lab, { ns: router, iface: wan.wanIf, stateDir: lab.path("state"), apply: true, args: FAST_CLIENT_ARGS });
    const bound = await client.next("bound", 15_000);
    const expiresAt = bound.lease?.expiresAt as number;
    await server.stop();

    const rebinding = await client.next("rebinding", 20_000);
    expect(rebinding.lease?.address).toBe(bound.lease?.address);
    const expired = await client.next("expired", 150_000);
    const lost = await client.next("lost", 1000);
    expect(lost.lease?.address).toBe(bound.lease?.address);
    expect(lost.reason).toBe("expired");
    // Not before the lease's end (timestamps are whole ms of the same clock).
    expect(Date.parse(expired.time as string)).toBeGreaterThanOrEqual(expiresAt);
    expect(client.events.map((e) => e.event)).toEqual(["bound", "rebinding", "expired", "lost"]);

    // Without a lease it goes back to discovering, and binds again once a server answers.
    const sendsAfterLoss = (): number => client.logs.filter((l) => l.msg === "send" && l.what === "DISCOVER" && Number(l.time) >= expiresAt).length;
    const deadline = Date.now() + 5000;
    while (sendsAfterLoss() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(sendsAfterLoss()).toBeGreaterThanOrEqual(2);
    await Dnsmasq.start(lab, dnsmasqOptions());
    const again = await client.next("bound", 20_000);
    expect(again.lease?.address).toMatch(/^10\.77\.0\.1\d\d$/);
    expect(await client.stop()).toBe(0);
  });
});
