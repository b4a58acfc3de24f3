// NTPClient with the chrony provider through `routerd serve`: a real chronyd client in the router namespace
// syncs from a real chronyd server in the ISP namespace, whose address reaches routerd only through the DHCP
// lease (option 42 → DHCPv4Client status ntpServers → NTPClient serverFrom). routerd owns one block in
// <root>/etc/chrony/sources.d/routerd.sources and makes chronyd take it with `chronyc reload sources`.
// Both chronyds run with -x: they never touch the (shared) system clock.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { Lab } from "../dhcpv4-client/netns.js";
import { Dnsmasq } from "../dhcpv4-client/peers.js";
import { addWan, type Wan } from "../dhcpv4-client/topology.js";
import { Router, ensureBuilt, until } from "../dhcpv4/router.js";
import { chronyc, chronyd, routerChronyd } from "./chronyd.js";

const lab = new Lab("ntp");
let router: Router;
let wan: Wan;
const SOURCES = "etc/chrony/sources.d/routerd.sources";
let socket: string;

const resources = (extra: Record<string, unknown> = {}) => [
  res("Interface", "wan", { ifname: wan.wanIf }),
  res("DHCPv4Client", "wan", { interface: "wan" }),
  res("NTPClient", "time", { provider: "chrony", source: "dhcp", serverFrom: [{ resource: "DHCPv4Client/wan", field: "ntpServers" }], ...extra }),
];

function sources(): string {
  return chronyc(router.ns, socket, ["sources"]);
}

beforeAll(async () => {
  ensureBuilt();
  router = new Router(lab);
  wan = addWan(lab, router.ns, "isp", "10.79.0");
  // The ISP's time server: its own clock at stratum 8, answering the router's subnet.
  mkdirSync(lab.path("server-run"), { mode: 0o750 });
  chronyd(lab, wan.isp, "server", ["local stratum 8", "allow 10.79.0.0/24", `bindcmdaddress ${lab.path("server-run")}/chronyd.sock`, "cmdport 0", `pidfile ${lab.path("server.pid")}`]);
  await Dnsmasq.start(lab, { ns: wan.isp, iface: wan.ispIf, range: "10.79.0.100,10.79.0.150,2m", leaseFile: lab.path("isp.leases"), extra: [`--dhcp-option=option:ntp-server,${wan.server}`] });
  socket = await routerChronyd(lab, router);
  router.writeConfig(resources());
  router.startServe();
}, 180_000);

afterAll(async () => {
  await router?.cleanup();
});

describe("NTPClient (chrony) with servers from the DHCP lease", () => {
  it("writes the lease's NTP server into routerd's block, reloads chronyd, and chronyd syncs from the server", { timeout: 60_000 }, async () => {
    await until("routerd's sources block", () => existsSync(join(router.root, SOURCES)) && readFileSync(join(router.root, SOURCES), "utf8").includes(wan.server), 30_000);
    expect(readFileSync(join(router.root, SOURCES), "utf8")).toBe(`# BEGIN routerd ntp-time\nserver ${wan.server} iburst\n# END routerd ntp-time\n`);
    // "^*": chronyd selected the server as its synchronisation source (it was told of it only by the reload).
    const synced = await until("chronyd synchronised to the ISP's server", () => (new RegExp(`^\\^\\*\\s+${wan.server.replace(/\./g, "\\.")}\\s`, "m").test(sources()) ? true : undefined), 40_000);
    expect(synced).toBe(true);
  });

  it("leaves a source routerd did not write alone, and removes only its own block with the resource", { timeout: 60_000 }, async () => {
    const foreign = join(router.root, "etc/chrony/sources.d/site.sources");
    writeFileSync(foreign, "server 192.0.2.123 iburst\n");
    router.writeConfig(resources().slice(0, 2));
    await until("routerd's block gone", () => (readFileSync(join(router.root, SOURCES), "utf8").includes(wan.server) ? undefined : true), 30_000);
    expect(readFileSync(join(router.root, SOURCES), "utf8")).toBe("");
    expect(readFileSync(foreign, "utf8")).toBe("server 192.0.2.123 iburst\n");
    await until("chronyd dropped the server after the reload", () => (sources().includes(wan.server) ? undefined : true), 20_000);
  });
});
