// A NAK under `routerd serve`: the ISP renumbers its pool and forgets its leases, the next renewal is
// refused, the client starts discovery over, and routerd replaces the old address with the new one.
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { Lab } from "../dhcpv4-client/netns.js";
import { Dnsmasq } from "../dhcpv4-client/peers.js";
import { addWan, type Wan } from "../dhcpv4-client/topology.js";
import { EventTap, Router, ensureBuilt, until } from "./router.js";

const lab = new Lab("d4nak");
let router: Router;
let wan: Wan;
let server: Dnsmasq;
let tap: EventTap;

const startServer = (range: string) =>
  Dnsmasq.start(lab, { ns: wan.isp, iface: wan.ispIf, range, leaseFile: lab.path("isp.leases"), extra: ["--dhcp-option=option:T1,3", "--dhcp-option=option:T2,6"] });

beforeAll(async () => {
  ensureBuilt();
  router = new Router(lab);
  wan = addWan(lab, router.ns, "isp", "10.77.0");
  server = await startServer("10.77.0.100,10.77.0.150,2m");
  router.writeConfig([res("Interface", "wan", { ifname: wan.wanIf }), res("DHCPv4Client", "wan", { interface: "wan" })]);
  router.startServe();
  tap = new EventTap(router.socket("wan"));
});

afterAll(async () => {
  tap?.close();
  await router?.cleanup();
  expect(router.leftovers()).toEqual([]);
});

describe("DHCPNAK through routerd serve", () => {
  it("restarts discovery and routerd moves the interface to the new address", { timeout: 60_000 }, async () => {
    const first = (await until("the first lease applied", () => router.addresses(wan.wanIf)[0], 20_000)).local;
    expect(first).toMatch(/^10\.77\.0\.1[0-5]\d$/);
    await until("the default route (metric 100 by default)", () => router.routes().some((r) => r.dst === "default" && r.metric === 100));

    await server.stop();
    rmSync(lab.path("isp.leases"), { force: true });
    server = await startServer("10.77.0.200,10.77.0.250,2m");

    const nak = await tap.next("nak", 0, 20_000);
    const lost = await tap.next("lost", nak, 2000);
    expect(tap.events[lost]!.attributes).toMatchObject({ address: first, reason: "nak" });
    const bound = await tap.next("bound", lost, 20_000);
    const second = tap.events[bound]!.attributes.address!;
    expect(second).toMatch(/^10\.77\.0\.2[0-5]\d$/);

    await until("only the new address on the interface", () => {
      const now = router.addresses(wan.wanIf).map((a) => a.local);
      return now.length === 1 && now[0] === second;
    }, 10_000);
    expect(router.routes()).toEqual(expect.arrayContaining([expect.objectContaining({ dst: "default", gateway: "10.77.0.1", dev: wan.wanIf, metric: 100 })]));
    expect(server.dhcp("DHCPNAK")).toHaveLength(1);
  });
});
