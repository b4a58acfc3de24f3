// Two DHCPv4Client resources on two WAN links at once under `routerd serve`: one daemon each, bound to its
// interface, no cross-talk (each lease comes from its own ISP), both leases applied with their own metrics.
// The input policy is drop: the servers' broadcast replies get in only through the derived port-68 holes.
// An EgressRoutePolicy without gateways takes each uplink's router from its lease.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { Lab, nsExec } from "../dhcpv4-client/netns.js";
import { Dnsmasq } from "../dhcpv4-client/peers.js";
import { addWan, type Wan } from "../dhcpv4-client/topology.js";
import { EventTap, Router, ensureBuilt, until } from "./router.js";

const lab = new Lab("d4two");
let router: Router;
let a: Wan;
let b: Wan;
const servers: Dnsmasq[] = [];
const taps: EventTap[] = [];

beforeAll(async () => {
  ensureBuilt();
  router = new Router(lab);
  a = addWan(lab, router.ns, "ispa", "10.71.0");
  b = addWan(lab, router.ns, "ispb", "10.72.0");
  for (const [w, net] of [[a, "10.71.0"], [b, "10.72.0"]] as const) {
    servers.push(
      await Dnsmasq.start(lab, {
        ns: w.isp,
        iface: w.ispIf,
        range: `${net}.100,${net}.150,2m`,
        leaseFile: lab.path(`${w.isp}.leases`),
        extra: [`--dhcp-option=option:dns-server,${net}.53`, "--dhcp-option=option:T1,4", "--dhcp-option=option:T2,8"],
      }),
    );
  }
  router.writeConfig([
    res("Interface", "wan-a", { ifname: a.wanIf }),
    res("Interface", "wan-b", { ifname: b.wanIf }),
    res("DHCPv4Client", "isp-a", { interface: "wan-a", routeMetric: 10 }),
    res("DHCPv4Client", "isp-b", { interface: "wan-b", routeMetric: 20, useDNS: false }),
    { apiVersion: "firewall.routerd.net/v1alpha1", kind: "FirewallPolicy", name: "default", spec: { defaultInput: "drop" } },
    // No gateways given: each uplink's table routes via its lease's router.
    res("EgressRoutePolicy", "uplinks", {
      candidates: [
        { name: "a", interface: "wan-a", table: 101, mark: "0x101", priority: 1001, weight: 200 },
        { name: "b", interface: "wan-b", table: 102, mark: "0x102", priority: 1002, weight: 100 },
      ],
    }),
  ]);
  router.startServe();
  taps.push(new EventTap(router.socket("isp-a")), new EventTap(router.socket("isp-b")));
});

afterAll(async () => {
  for (const t of taps) t.close();
  await router?.cleanup();
  expect(router.leftovers()).toEqual([]);
});

describe("two WAN links", () => {
  it("gets and applies one lease per link from its own ISP, with each resource's metric", { timeout: 40_000 }, async () => {
    const addrA = (await until("lease A applied", () => router.addresses(a.wanIf)[0], 20_000)).local;
    const addrB = (await until("lease B applied", () => router.addresses(b.wanIf)[0], 20_000)).local;
    expect(addrA).toMatch(/^10\.71\.0\./);
    expect(addrB).toMatch(/^10\.72\.0\./);
    await until("both default routes", () => router.routes().filter((r) => r.dst === "default").length === 2);
    expect(router.routes().filter((r) => r.dst === "default")).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ gateway: "10.71.0.1", dev: a.wanIf, metric: 10 }),
        expect.objectContaining({ gateway: "10.72.0.1", dev: b.wanIf, metric: 20 }),
      ]),
    );
    const rules = nsExec(router.ns, ["nft", "list", "ruleset"]).split("\n");
    for (const w of [a, b]) expect(rules.some((l) => l.includes(w.wanIf) && l.includes("udp dport 68 accept"))).toBe(true);
    // useDNS: false on B: only A's servers reach the resolver.
    await until("A's resolver block", () => router.resolvConf().includes("nameserver 10.71.0.53"));
    expect(router.resolvConf()).not.toContain("10.72.0.53");
  });

  it("lets other resources use the leases: each EgressRoutePolicy table routes via its lease's router", { timeout: 20_000 }, async () => {
    const table = (id: number) => JSON.parse(nsExec(router.ns, ["ip", "-j", "-4", "route", "show", "table", String(id)])) as { dst: string; gateway?: string; dev: string }[];
    await until("both uplink tables", () => table(101).length > 0 && table(102).length > 0, 10_000);
    expect(table(101)).toEqual([expect.objectContaining({ dst: "default", gateway: "10.71.0.1", dev: a.wanIf })]);
    expect(table(102)).toEqual([expect.objectContaining({ dst: "default", gateway: "10.72.0.1", dev: b.wanIf })]);
  });

  it("keeps the two daemons apart: each renews with its own server and sees no foreign traffic", { timeout: 30_000 }, async () => {
    const [ta, tb] = taps as [EventTap, EventTap];
    await ta.next("renewed", 0, 20_000);
    await tb.next("renewed", 0, 20_000);
    for (const [t, server] of [[ta, "10.71.0.1"], [tb, "10.72.0.1"]] as const) {
      for (const e of t.events) expect(e.attributes.serverId).toBe(server);
      expect(t.topics().filter((x) => x !== "renewed")).toEqual(["bound"]);
    }
    const [sa, sb] = servers as [Dnsmasq, Dnsmasq];
    expect(sa.leases().map((l) => l.address)).toEqual([router.addresses(a.wanIf)[0]!.local]);
    expect(sb.leases().map((l) => l.address)).toEqual([router.addresses(b.wanIf)[0]!.local]);
    expect((await router.resource("isp-a"))?.phase).toBe("Bound");
    expect((await router.resource("isp-b"))?.phase).toBe("Bound");
  });
});
