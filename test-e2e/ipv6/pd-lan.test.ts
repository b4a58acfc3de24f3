// Issue 6 end to end: `routerd serve` with DHCPv6PrefixDelegation + IPv6DelegatedAddress +
// IPv6RouterAdvertisement, kea-dhcp6 as the ISP, and a LAN host whose kernel autoconfigures from the
// router advertisements dnsmasq sends. The steps share one topology and run in order: acquire, SLAAC and
// reachability, the ISP's DNS passed on (RDNSS, stateless DHCPv6), renew, rebind, renumbering (the old prefix announced deprecated), restarts that keep the
// prefix, a prefix given up (the LAN told at once), and a server that goes away (expiry, then an
// IPv6-silent LAN).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { deriveLanAddress } from "@routerd/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientProcess, ensureBuilt } from "../dhcpv6-client/support/client.js";
import { sh } from "../dhcpv6-client/support/lab.js";
import { ISP_HOST, Ipv6Lan, POOLS, ROUTER_CONFIG, until, type Addr } from "./support/topology.js";

// T1/T2 short (renew and rebind happen within seconds); lifetimes long enough that nothing a test checks
// could run out by itself in the time it waits.
const TIMERS = { renew: 3, rebind: 5, preferred: 40, valid: 60 };
const subnet = (iface: string, pool: string) => ({ id: 1, iface, subnet: "2001:db8:1::/64", pdPrefix: pool, rapidCommit: true });
const net = new Ipv6Lan((iface) => ({ subnets: [subnet(iface, POOLS[0]!)], timers: TIMERS, optionData: [{ name: "dns-servers", data: "2001:db8::53" }] }));

interface Numbers {
  prefix: string;
  /** The LAN /64's network address and the router's address in it. */
  net64: string;
  router: string;
}
let current: Numbers;
/** dnsmasq as it runs once the ISP's DNS information is in its config. */
let dnsmasqPid: number;

function numbersOf(prefix: string): Numbers {
  const d = deriveLanAddress({ prefix, length: 56 }, 1n, "::1");
  if (!d.ok) throw new Error(d.reason);
  return { prefix, net64: d.network, router: d.address };
}

const in64 = (a: Addr, n: Numbers) => a.address.startsWith(n.net64.replace(/::$/, ":"));
const routerLan = () => net.addresses(net.router, "lan0");
const client = () => net.addresses(net.lan, "c0");

async function details(): Promise<Record<string, unknown> | undefined> {
  const r = await net.resource();
  return r && ["Bound", "Renewing", "Rebinding"].includes(r.phase) && r.detailsJson ? (JSON.parse(r.detailsJson) as Record<string, unknown>) : undefined;
}

beforeAll(async () => {
  ensureBuilt();
  await net.setUp(ROUTER_CONFIG());
});

afterAll(async () => {
  if (process.env.ROUTERD_E2E_DEBUG) {
    process.stderr.write(net.serveLog);
    for (const ra of net.ras.slice(-25)) process.stderr.write(`RA ${new Date(ra.at).toISOString()} ${JSON.stringify(ra)}\n`);
    process.stderr.write(`events ${net.events.map((e) => `${e.time?.toISOString()} ${e.topic}`).join("\n")}\n`);
    process.stderr.write(`dnsmasq.log\n${sh(["cat", join(net.stateDir, "dnsmasq", "main", "daemon.log")], { allowFail: true })}\n`);
  }
  await net.cleanup();
});

describe("IPv6 LAN from a delegated prefix (routerd serve, kea, dnsmasq, a SLAAC host)", () => {
  it("acquires a /56 and numbers the LAN: <prefix>:1::1/64 with the lease's lifetimes, plus the unreachable route", async () => {
    const d = await until("a delegated prefix", details, 30_000);
    expect(d.prefixLength).toBe(56);
    expect(String(d.prefix)).toMatch(/^2001:db8:10/);
    current = numbersOf(String(d.prefix));
    const a = await until("the LAN address", () => routerLan().find((x) => x.address === current.router));
    expect(a.prefixLength).toBe(64);
    expect(a.valid).toBeGreaterThan(0);
    expect(a.valid).toBeLessThanOrEqual(TIMERS.valid);
    expect(a.preferred).toBeLessThanOrEqual(TIMERS.preferred);
    expect(net.routes(net.router)).toContain(`unreachable ${current.prefix}/56 dev lo`);
  });

  it("the LAN host autoconfigures from routerd's RA and reaches the ISP side", async () => {
    const slaac = await until("a SLAAC address", () => client().find((a) => in64(a, current) && !a.deprecated));
    expect(slaac.valid).toBeLessThanOrEqual(TIMERS.valid);
    const ra = await until("an RA with the LAN prefix", () => net.ras.find((r) => r.pio.some((p) => p.prefix === `${current.net64}/64`)));
    expect(ra.routerLifetime).toBe(30);
    const pio = ra.pio.find((p) => p.prefix === `${current.net64}/64`)!;
    expect(pio.flags & 0xc0).toBe(0xc0); // on-link + autonomous
    expect(pio.preferred).toBeGreaterThan(0);
    expect(pio.valid).toBeLessThanOrEqual(TIMERS.valid);
    expect(net.routes(net.lan)).toMatch(/default via fe80::\S+ dev c0 proto ra/);
    expect(await until("a ping to the ISP host", () => net.ping("", ISP_HOST), 10_000)).toBe(true);
  });

  it("DHCPv6Information passes the ISP's DNS server on: RDNSS with the O flag, and stateless DHCPv6 to a real client", async () => {
    const ra = await until("an RA with RDNSS", () => net.ras.find((r) => r.rdnss.length > 0));
    expect(ra.flags & 0x40).toBe(0x40); // O: other configuration by DHCPv6
    expect(ra.flags & 0x80).toBe(0); // M: no DHCPv6 addresses
    expect(ra.rdnss[0]!.servers).toEqual(["2001:db8::53"]);
    dnsmasqPid = net.daemonPid("dnsmasq", "main");
    // routerd's own client in information-only mode, as a LAN host would ask.
    const info = ClientProcess.start(net.lab, net.lan, ["--interface", "c0", "--state-dir", net.lab.path("lan-client"), "--info-only"]);
    try {
      const e = await info.waitForEvent("information", 15_000);
      expect((e.information as { dnsServers: string[] }).dnsServers).toEqual(["2001:db8::53"]);
    } finally {
      await info.stop();
    }
  });

  it("renews at T1 and the LAN address gets the renewed lifetimes", async () => {
    const expiry = () => Date.now() + routerLan().find((x) => x.address === current.router)!.valid * 1000;
    const first = expiry();
    const since = Date.now();
    const renewed = await until("a renewed event", () => net.events.find((e) => e.topic === "dhcpv6.prefix.renewed" && e.time!.getTime() >= since));
    expect(renewed.attributes.via).toBe("renew");
    // The address's own expiry moves forward with each renewal (whole seconds on the host).
    await until("a later expiry on the LAN address", () => expiry() - first >= 2000, 10_000);
  });

  it("rebinds at T2 when the server ignores Renew, and the LAN keeps its numbers", async () => {
    const since = Date.now();
    await net.kea.reconfigure({ serverIdentifier: "0e0e0e0e" });
    const e = await until("a rebind", () => net.events.find((x) => x.topic === "dhcpv6.prefix.renewed" && x.attributes.via === "rebind" && x.time!.getTime() >= since), 20_000);
    expect(e.attributes.prefixes).toBe(`${current.prefix}/56`);
    expect(routerLan().map((a) => a.address)).toEqual([current.router]);
    expect(net.ping("", ISP_HOST)).toBe(true);
  });

  it("a changed pool renumbers the LAN; the old prefix is announced with preferred lifetime 0, then gone", async () => {
    const old = current;
    const oldClient = client().find((a) => in64(a, old) && !a.deprecated)!;
    expect(oldClient.preferred).toBeGreaterThan(25); // could not run out on its own within the waits below
    const since = Date.now();
    await net.kea.reconfigure({ subnets: [subnet("isp0", POOLS[1]!)] });
    expect((await (await net.daemon()).command("renew")).ok).toBe(true);
    const d = await until("the new prefix", async () => {
      const x = await details();
      return x && x.prefix !== old.prefix ? x : undefined;
    });
    expect(String(d.prefix)).toMatch(/^2001:db8:20/);
    expect(d.withdrawn).toEqual([{ prefix: old.prefix, prefixLength: 56, until: expect.any(String) }]);
    current = numbersOf(String(d.prefix));

    await until("the router's LAN renumbered", () => {
      const addrs = routerLan().map((a) => a.address);
      return addrs.includes(current.router) && !addrs.includes(old.router);
    });
    const routes = net.routes(net.router);
    expect(routes).toContain(`unreachable ${current.prefix}/56 dev lo`);
    expect(routes).not.toContain(`unreachable ${old.prefix}/56`);

    // What dnsmasq sent (RFC 7084 L-13): the old /64 deprecated next to the new one, still a default router.
    const ra = await until("an RA with the old prefix at preferred lifetime 0", () => net.rasSince(since).find((r) => r.pio.some((p) => p.prefix === `${old.net64}/64` && p.preferred === 0)));
    expect(ra.routerLifetime).toBe(30);
    expect(net.rasSince(since).some((r) => r.pio.some((p) => p.prefix === `${current.net64}/64` && p.preferred > 0))).toBe(true);

    // The host: the old address deprecated long before its own preferred lifetime ran out, a new one in use.
    const seen = await until("the host renumbered", () => {
      const as = client();
      const o = as.find((a) => a.address === oldClient.address);
      const n = as.find((a) => in64(a, current) && !a.deprecated);
      return o?.deprecated && o.preferred === 0 && n ? n : undefined;
    });
    expect(net.ping(seen.address, ISP_HOST)).toBe(true);
  });

  it("a restart of routerd serve keeps the prefix, the daemon and the LAN address", async () => {
    const pid = net.daemonPid("dhcpv6-client", "isp");
    await net.stopServe();
    net.startServe();
    await until("serve answering again", () => sh(["ls", `${net.runDir}/routerd`], { allowFail: true }).includes("core.sock"), 15_000);
    // A few reconcile cycles later nothing has moved.
    await new Promise((r) => setTimeout(r, 3000));
    expect(net.daemonPid("dhcpv6-client", "isp")).toBe(pid);
    expect((await details())?.prefix).toBe(current.prefix);
    expect(routerLan().map((a) => a.address)).toEqual([current.router]);
  });

  it("a client killed with -9 is restarted, checks its stored lease with REBIND and keeps the prefix; the LAN address never goes", async () => {
    const pid = net.daemonPid("dhcpv6-client", "isp");
    net.dropDaemon();
    let vanished = false;
    const watch = setInterval(() => {
      if (!routerLan().some((a) => a.address === current.router)) vanished = true;
    }, 100);
    try {
      process.kill(pid, "SIGKILL");
      await until("a new client process", () => net.daemonPid("dhcpv6-client", "isp") !== pid, 15_000);
      const since = Date.now();
      await net.daemon();
      const rebound = await until("the stored lease confirmed", () => net.events.find((e) => e.topic === "dhcpv6.prefix.acquired" && e.time!.getTime() >= since - 5000), 20_000);
      expect(rebound.attributes.prefixes).toBe(`${current.prefix}/56`);
      await until("Bound with the same prefix", async () => (await details())?.prefix === current.prefix);
      // The supervisor keeps the daemon's output in its state dir.
      const log = readFileSync(join(net.stateDir, "dhcpv6-client", "isp", "daemon.log"), "utf8").split("\n").filter((l) => l.includes("verifying the stored lease with REBIND"));
      expect(log.length).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(log.at(-1)!).prefixes).toEqual([`${current.prefix}/56`]);
    } finally {
      clearInterval(watch);
    }
    expect(vanished).toBe(false);
  });

  it("a client stopped with SIGTERM releases; restarted, it asks for and gets the same prefix back", async () => {
    const pid = net.daemonPid("dhcpv6-client", "isp");
    net.dropDaemon();
    process.kill(pid, "SIGTERM");
    await until("the release at the server", () => net.kea.log.includes(`prefix ${current.prefix}/56 for iaid=1 was released properly`), 15_000);
    await until("a new client process", () => net.daemonPid("dhcpv6-client", "isp") !== pid, 15_000);
    const d = await until("Bound again", details, 20_000);
    expect(d.prefix).toBe(current.prefix);
    await until("the LAN address back", () => routerLan().some((a) => a.address === current.router));
  });

  it("the prefix given up (release command): the LAN is told at once and dnsmasq keeps running", async () => {
    const lost = current;
    // Renumbering, restarts of serve and of the client changed nothing in dnsmasq's config: same process.
    const dnsmasq = net.daemonPid("dnsmasq", "main");
    expect(dnsmasq).toBe(dnsmasqPid);
    const oldClient = await until("the host using the prefix", () => client().find((a) => in64(a, lost) && !a.deprecated));
    expect(oldClient.preferred).toBeGreaterThan(25);
    const since = Date.now();
    // The client releases and stays idle: for routerd this is the same as a prefix the server withdrew.
    expect((await (await net.daemon()).command("release")).ok).toBe(true);
    expect((await net.resource())?.phase).toBe("Released");
    await until("the router's LAN address gone", () => routerLan().length === 0);
    await until("the unreachable route gone", () => !net.routes(net.router).includes("unreachable"), 5000);
    // dnsmasq was not restarted (its config did not change), so it announces the loss: RFC 7084 L-13.
    const ra = await until("an RA with the lost prefix at preferred lifetime 0", () => net.rasSince(since).find((r) => r.pio.some((p) => p.prefix === `${lost.net64}/64` && p.preferred === 0)));
    expect(ra.routerLifetime).toBe(0);
    expect(ra.pio.every((p) => p.preferred === 0)).toBe(true);
    expect(ra.rdnss).toEqual([]);
    expect(net.daemonPid("dnsmasq", "main")).toBe(dnsmasq);
    await until("the host's address deprecated at once", () => client().find((a) => a.address === oldClient.address)?.deprecated);
    await until("no default route on the host", () => !net.routes(net.lan).includes("default"));
  });

  it("a renew command after the release brings the prefix and the LAN back", async () => {
    expect((await (await net.daemon()).command("renew")).ok).toBe(true);
    const d = await until("Bound again", details, 20_000);
    current = numbersOf(String(d.prefix));
    await until("the LAN address back", () => routerLan().some((a) => a.address === current.router));
    await until("the host autoconfigured again", () => client().some((a) => in64(a, current) && !a.deprecated));
  });

  it("the server gone: the prefix expires, the router drops it, and the LAN goes IPv6-silent", async () => {
    expect((await net.kea.command("dhcp-disable")).result).toBe(0);
    await net.daemon();
    if (process.env.ROUTERD_E2E_DEBUG) process.stderr.write(`dhcp-disable at ${new Date().toISOString()}\n`);
    const expired = await until("the expired event", () => net.events.find((e) => e.topic === "dhcpv6.prefix.expired"), TIMERS.valid * 1000 + 15_000, 500);
    expect(expired.attributes.removed).toBe(`${current.prefix}/56`);
    const r = await net.resource();
    expect(["Bound", "Renewing", "Rebinding"]).not.toContain(r?.phase);
    await until("no global address on the router's LAN", () => routerLan().length === 0);
    await until("no unreachable route for the lost prefix", () => !net.routes(net.router).includes("unreachable"), 5000);
    // The host's address ran out with the lease (same lifetimes), and its default route went with it.
    await until("no usable global address on the host", () => client().every((a) => a.deprecated), 15_000);
    await until("no default route on the host", () => !net.routes(net.lan).includes("default"), 35_000);
    // Silence: not even a solicited RA (the host solicits again when its link comes back up).
    const quietSince = Date.now();
    sh(["ip", "-n", net.lan, "link", "set", "c0", "down"]);
    sh(["ip", "-n", net.lan, "link", "set", "c0", "up"]);
    await new Promise((resolve) => setTimeout(resolve, 9000));
    const after = net.rasSince(quietSince);
    expect(after.filter((ra) => ra.routerLifetime > 0 || ra.pio.some((p) => p.preferred > 0))).toEqual([]);
    await until("a full RA interval without any RA", () => net.rasSince(Date.now() - 9000).length === 0 && Date.now() - quietSince > 9000, 20_000);
  });

  it("the server back: a renew command brings the prefix and the LAN back", async () => {
    expect((await net.kea.command("dhcp-enable")).result).toBe(0);
    expect((await (await net.daemon()).command("renew")).ok).toBe(true);
    const d = await until("Bound again", details, 20_000);
    current = numbersOf(String(d.prefix));
    await until("the LAN address back", () => routerLan().some((a) => a.address === current.router));
    await until("the host autoconfigured again", () => client().some((a) => in64(a, current) && !a.deprecated));
  });
});
