// DHCPv4Client through `routerd serve`: routerd starts routerd-dhcpv4-client for the resource, reads the
// lease from its socket and applies it as artifacts the resource owns (address, routes with routeMetric,
// a DNS block in <root>/etc/resolv.conf). The address must stay on the interface through renewal (RENEW
// replies go to it), rebinding and a kill -9 of the daemon (INIT-REBOOT), and everything goes away with
// the resource.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { Lab, nsExec } from "../dhcpv4-client/netns.js";
import { Dnsmasq } from "../dhcpv4-client/peers.js";
import { addWan, type Wan } from "../dhcpv4-client/topology.js";
import { EventTap, Router, ensureBuilt, until } from "./router.js";

const lab = new Lab("d4wan");
let router: Router;
let wan: Wan;
let server: Dnsmasq;
let tap: EventTap;
let address = "";

const resources = () => [
  res("Interface", "wan", { ifname: wan.wanIf }),
  res("DHCPv4Client", "wan", { interface: "wan", hostname: "cpe-e2e", routeMetric: 50 }),
];

beforeAll(async () => {
  ensureBuilt();
  router = new Router(lab);
  wan = addWan(lab, router.ns, "isp", "10.77.0");
  server = await Dnsmasq.start(lab, {
    ns: wan.isp,
    iface: wan.ispIf,
    range: "10.77.0.100,10.77.0.150,2m",
    leaseFile: lab.path("isp.leases"),
    extra: [
      "--dhcp-option=option:dns-server,10.77.0.53,10.77.0.54",
      "--dhcp-option=option:domain-name,isp.test",
      "--dhcp-option=121,198.51.100.0/24,10.77.0.2,0.0.0.0/0,10.77.0.1",
      // dnsmasq's shortest lease is 2 minutes; short T1/T2 make renewal and rebinding happen in seconds.
      "--dhcp-option=option:T1,4",
      "--dhcp-option=option:T2,8",
    ],
  });
  router.watchAddresses();
  router.writeConfig(resources());
  router.startServe();
  tap = new EventTap(router.socket("wan"));
});

afterAll(async () => {
  tap?.close();
  await router?.cleanup();
  expect(router.leftovers()).toEqual([]);
});

describe("DHCPv4Client through routerd serve", () => {
  it("applies the lease: address, option 121 routes with the metric, and the DNS servers for the resolver", { timeout: 30_000 }, async () => {
    const addr = await until("a leased address on the WAN", () => router.addresses(wan.wanIf).find((a) => a.local.startsWith("10.77.0.")), 20_000);
    address = addr.local;
    expect(addr.prefixlen).toBe(24);
    expect(Number(address.split(".")[3])).toBeGreaterThanOrEqual(100);
    await until("the lease's routes", () => router.routes().some((r) => r.dst === "198.51.100.0/24"));
    const routes = router.routes().filter((r) => r.dev === wan.wanIf && r.protocol !== "kernel");
    expect(routes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ dst: "default", gateway: "10.77.0.1", metric: 50 }),
        expect.objectContaining({ dst: "198.51.100.0/24", gateway: "10.77.0.2", metric: 50 }),
      ]),
    );
    expect(routes).toHaveLength(2);
    await until("the resolver block", () => router.resolvConf().includes("# END routerd dhcpv4-wan"));
    expect(router.resolvConf()).toContain("# BEGIN routerd dhcpv4-wan\nnameserver 10.77.0.53\nnameserver 10.77.0.54\nsearch isp.test\n# END routerd dhcpv4-wan\n");

    const r = await router.resource("wan");
    expect(r).toMatchObject({ kind: "DHCPv4Client", phase: "Bound" });
    expect(JSON.parse(r!.detailsJson)).toMatchObject({ address, prefixLength: 24, routers: ["10.77.0.1"], dnsServers: ["10.77.0.53", "10.77.0.54"], domain: "isp.test", serverId: "10.77.0.1" });
    expect(server.leases()).toEqual([expect.objectContaining({ address, hostname: "cpe-e2e" })]);
    expect(tap.topics()).toEqual(["bound"]);
  });

  it("renews at T1 by unicast, which works because routerd put the address on the interface", { timeout: 30_000 }, async () => {
    const from = server.lines.length;
    const i = await tap.next("renewed", 0, 20_000);
    expect(JSON.parse(tap.events[i]!.attributes.lease!)).toMatchObject({ address });
    // A renewal is a REQUEST with ciaddr set, unicast to the server; dnsmasq logs it like any REQUEST.
    await server.waitForLog(new RegExp(`DHCPACK\\(${wan.ispIf}\\) ${address.replace(/\./g, "\\.")} `), 5000, from);
    expect(router.addresses(wan.wanIf).map((a) => a.local)).toEqual([address]);
    expect(router.deletions(address)).toEqual([]);
  });

  it("rebinds by broadcast at T2 when unicast goes unanswered, and keeps the address", { timeout: 40_000 }, async () => {
    nsExec(wan.isp, ["nft", "add table inet rdtest; add chain inet rdtest input { type filter hook input priority 0; }; add rule inet rdtest input udp dport 67 ip daddr != 255.255.255.255 drop"]);
    try {
      const from = tap.events.length;
      const i = await tap.next("rebinding", from, 25_000);
      await tap.next("renewed", i, 10_000);
    } finally {
      nsExec(wan.isp, ["nft", "delete table inet rdtest"]);
    }
    expect((await router.resource("wan"))?.phase).toBe("Bound");
    expect(router.addresses(wan.wanIf).map((a) => a.local)).toEqual([address]);
    expect(router.deletions(address)).toEqual([]);
  });

  it("keeps the address across a kill -9 of the daemon: restarted by routerd, INIT-REBOOT, no DISCOVER, no flap", { timeout: 40_000 }, async () => {
    const old = router.pid("wan")!;
    const from = server.lines.length;
    const seen = tap.events.length;
    process.kill(old, "SIGKILL");
    const pid = await until("a new daemon", () => {
      const p = router.pid("wan");
      return p !== undefined && p !== old ? p : undefined;
    });
    expect(pid).not.toBe(old);
    const i = await tap.next("bound", seen, 20_000);
    expect(tap.events[i]!.attributes.resumed).toBeUndefined();
    const exchange = server.lines.slice(from).filter((l) => / DHCP[A-Z]+\(/.test(l)).map((l) => /DHCP[A-Z]+/.exec(l)![0]);
    expect(exchange.slice(0, 2)).toEqual(["DHCPREQUEST", "DHCPACK"]);
    expect(exchange).not.toContain("DHCPDISCOVER");
    expect((await router.resource("wan"))?.phase).toBe("Bound");
    expect(router.addresses(wan.wanIf).map((a) => a.local)).toEqual([address]);
    expect(router.deletions(address)).toEqual([]);
  });

  it("removing the resource stops the daemon with a RELEASE and removes its socket, state and artifacts", { timeout: 40_000 }, async () => {
    const pid = router.pid("wan")!;
    const from = server.lines.length;
    router.writeConfig(resources().slice(0, 1));
    await until("the address removed", () => router.addresses(wan.wanIf).length === 0, 20_000);
    await until("the routes removed", () => !router.routes().some((r) => r.dev === wan.wanIf), 5000);
    await until("the resolver block removed", () => !router.resolvConf().includes("dhcpv4-wan"), 5000);
    await until("the daemon gone", () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    });
    await server.waitForLog(/DHCPRELEASE\(/, 5000, from);
    expect(server.leases()).toEqual([]);
    expect(existsSync(router.socket("wan"))).toBe(false);
    expect(existsSync(router.daemonStateDir("wan"))).toBe(false);
    expect(router.pid("wan")).toBeUndefined();
  });
});
