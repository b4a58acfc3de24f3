// An authoritative dnsmasq refuses a lease it no longer wants: NAK while RENEWING (pool moved within the
// subnet) and NAK in INIT-REBOOT after a restart (ISP moved to another subnet). Both restart discovery.
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Lab, sh } from "./netns.js";
import { ClientProcess, Dnsmasq, ensureBuilt } from "./peers.js";
import { FAST_CLIENT_ARGS, addWan, type Wan } from "./topology.js";

const lab = new Lab("d4nak");
let wan: Wan;
let router: string;
let server: Dnsmasq;
let client: ClientProcess;
let secondAddress = "";

const startServer = (range: string): Promise<Dnsmasq> =>
  Dnsmasq.start(lab, { ns: wan.isp, iface: wan.ispIf, range, leaseFile: lab.path("isp.leases"), extra: ["--dhcp-option=option:T1,3", "--dhcp-option=option:T2,6"] });

beforeAll(() => {
  ensureBuilt();
  router = lab.netns("rtr");
  wan = addWan(lab, router, "isp", "10.77.0");
});

afterAll(async () => {
  await lab.cleanup();
});

describe("DHCPNAK", () => {
  it("while renewing: reports nak and lost, then binds to an address from the new pool", { timeout: 60_000 }, async () => {
    server = await startServer("10.77.0.100,10.77.0.150,2m");
    client = ClientProcess.start(lab, { ns: router, iface: wan.wanIf, stateDir: lab.path("state"), apply: true, args: ["--no-release", ...FAST_CLIENT_ARGS] });
    const first = await client.next("bound", 15_000);
    expect(first.lease?.address).toMatch(/^10\.77\.0\.1[0-5]\d$/);

    // The ISP renumbers its pool and forgets its leases.
    await server.stop();
    rmSync(lab.path("isp.leases"), { force: true });
    server = await startServer("10.77.0.200,10.77.0.250,2m");

    const nak = await client.next("nak", 15_000);
    expect(nak).toMatchObject({ serverId: "10.77.0.1", reason: "address not available" });
    const lost = await client.next("lost", 1000);
    expect(lost).toMatchObject({ reason: "nak", lease: { address: first.lease?.address } });
    const second = await client.next("bound", 15_000);
    secondAddress = second.lease?.address as string;
    expect(secondAddress).toMatch(/^10\.77\.0\.2[0-5]\d$/);
    expect(server.dhcp("DHCPNAK").length).toBe(1);
    // The NAK came for a renewal (ciaddr set, sent by unicast to the server).
    const renewals = client.logs.filter((l) => l.msg === "send" && l.what === "REQUEST(renewing)");
    expect(renewals.length).toBeGreaterThanOrEqual(1);
  });

  it("after a restart (INIT-REBOOT) in a renumbered network: nak, lost, new lease", { timeout: 60_000 }, async () => {
    expect(await client.stop()).toBe(0);
    expect(client.events.at(-1)?.event).toBe("bound");
    await server.stop();
    sh(["ip", "-n", wan.isp, "addr", "flush", "dev", wan.ispIf]);
    sh(["ip", "-n", wan.isp, "addr", "add", "10.88.0.1/24", "dev", wan.ispIf]);
    rmSync(lab.path("isp.leases"), { force: true });
    server = await startServer("10.88.0.100,10.88.0.150,2m");

    const restarted = ClientProcess.start(lab, { ns: router, iface: wan.wanIf, stateDir: lab.path("state"), apply: true, args: FAST_CLIENT_ARGS });
    const nak = await restarted.next("nak", 15_000);
    expect(nak.reason).toBe("wrong network");
    const lost = await restarted.next("lost", 1000);
    expect(lost).toMatchObject({ reason: "nak", lease: { address: secondAddress } });
    const bound = await restarted.next("bound", 15_000);
    expect(bound.lease).toMatchObject({ serverId: "10.88.0.1", prefixLength: 24 });
    expect(bound.lease?.address).toMatch(/^10\.88\.0\.1[0-5]\d$/);
    const sends = restarted.logs.filter((l) => l.msg === "send").map((l) => l.what);
    expect(sends.slice(0, 2)).toEqual(["REQUEST(init-reboot)", "DISCOVER"]);
    expect(await restarted.stop()).toBe(0);
  });
});
