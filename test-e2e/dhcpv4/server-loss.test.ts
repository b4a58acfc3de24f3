// The ISP's DHCP server goes away under `routerd serve`: the client rebinds at T2, the lease runs out
// (dnsmasq's shortest lease is 2 minutes, so this file takes a little over 2 minutes) and routerd removes
// the address, the routes and the DNS block; when a server is back, the next lease is applied again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { Lab } from "../dhcpv4-client/netns.js";
import { Dnsmasq } from "../dhcpv4-client/peers.js";
import { addWan, type Wan } from "../dhcpv4-client/topology.js";
import { EventTap, Router, ensureBuilt, until } from "./router.js";

const lab = new Lab("d4lost");
let router: Router;
let wan: Wan;
let tap: EventTap;

const startServer = () =>
  Dnsmasq.start(lab, {
    ns: wan.isp,
    iface: wan.ispIf,
    range: "10.77.0.100,10.77.0.150,2m",
    leaseFile: lab.path("isp.leases"),
    extra: ["--dhcp-option=option:dns-server,10.77.0.53", "--dhcp-option=option:T1,5", "--dhcp-option=option:T2,10"],
  });

beforeAll(() => {
  ensureBuilt();
  router = new Router(lab);
  wan = addWan(lab, router.ns, "isp", "10.77.0");
  router.watchAddresses();
  router.writeConfig([res("Interface", "wan", { ifname: wan.wanIf }), res("DHCPv4Client", "uplink", { interface: "wan", routeMetric: 200 })]);
});

afterAll(async () => {
  tap?.close();
  await router?.cleanup();
  expect(router.leftovers()).toEqual([]);
});

describe("losing the ISP's DHCP server", () => {
  it("rebinds, lets the lease expire, and routerd removes the address, the routes and the DNS block", { timeout: 240_000 }, async () => {
    const server = await startServer();
    router.startServe();
    tap = new EventTap(router.socket("uplink"));
    const { local: address } = await until("the lease applied", () => router.addresses(wan.wanIf)[0], 20_000);
    await until("the default route", () => router.routes().some((r) => r.dst === "default" && r.gateway === "10.77.0.1" && r.metric === 200));
    await until("the resolver block", () => router.resolvConf().includes("nameserver 10.77.0.53"));

    await server.stop();
    const rebinding = await tap.next("rebinding", 0, 20_000);
    expect(router.addresses(wan.wanIf).map((a) => a.local)).toEqual([address]);
    const expired = await tap.next("expired", rebinding, 150_000);
    await tap.next("lost", expired, 1000);
    await until("the address removed", () => router.addresses(wan.wanIf).length === 0, 10_000);
    expect(router.routes().filter((r) => r.dev === wan.wanIf)).toEqual([]);
    expect(router.resolvConf()).not.toContain("dhcpv4-uplink");
    const r = await router.resource("uplink");
    expect(r?.phase).toBe("Selecting");
    expect(r?.detailsJson).toBe("");
    // Taken off once, at the end of the lease, not before.
    await until("ip monitor saw the removal", () => router.deletions(address).length > 0, 2000);
    expect(router.deletions(address)).toHaveLength(1);
  });

  it("applies the next lease once a server answers again", { timeout: 60_000 }, async () => {
    const from = tap.events.length;
    await startServer();
    // Discovery backs off up to 64 s after a long outage; a renew command asks at once.
    const { connectDaemon } = await import("@routerd/rpc");
    const conn = await connectDaemon(router.socket("uplink"));
    try {
      expect((await conn.command("renew")).ok).toBe(true);
    } finally {
      conn.close();
    }
    await tap.next("bound", from, 30_000);
    await until("the address back", () => router.addresses(wan.wanIf)[0], 10_000);
    await until("the default route back", () => router.routes().some((r) => r.dst === "default" && r.metric === 200), 10_000);
  });
});
