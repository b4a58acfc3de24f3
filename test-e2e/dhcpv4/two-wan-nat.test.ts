// Two DHCPv4 uplinks behind NAT with an addressed LAN (the lab found this): before a client has its
// address the kernel sends its DISCOVER from the LAN's address, so both clients' DISCOVERs share one
// conntrack tuple, and the masquerade for LAN sources bound it to the first uplink: the second uplink's
// DISCOVER was refused (EPERM) and its lease came a retransmission (4 s) later. routerd_nat now lets the
// clients' requests bypass conntrack; both first DISCOVERs leave.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { Lab, nsExec } from "../dhcpv4-client/netns.js";
import { Dnsmasq } from "../dhcpv4-client/peers.js";
import { addWan, type Wan } from "../dhcpv4-client/topology.js";
import { Router, ensureBuilt, until } from "./router.js";

const lab = new Lab("d4nat");
let router: Router;
let a: Wan;
let b: Wan;

beforeAll(async () => {
  ensureBuilt();
  router = new Router(lab);
  a = addWan(lab, router.ns, "ispa", "10.73.0");
  b = addWan(lab, router.ns, "ispb", "10.74.0");
  // The LAN: both ends in the router namespace, enough for an address the kernel can pick.
  nsExec(router.ns, ["ip", "link", "add", "lan0", "type", "veth", "peer", "name", "lan1"]);
  nsExec(router.ns, ["ip", "link", "set", "lan1", "up"]);
  for (const [w, net] of [[a, "10.73.0"], [b, "10.74.0"]] as const) {
    await Dnsmasq.start(lab, { ns: w.isp, iface: w.ispIf, range: `${net}.100,${net}.150,2m`, leaseFile: lab.path(`${w.isp}.leases`), extra: ["--no-ping"] });
  }
  router.writeConfig([
    res("Interface", "wan-a", { ifname: a.wanIf }),
    res("Interface", "wan-b", { ifname: b.wanIf }),
    res("Interface", "lan", { ifname: "lan0" }),
    res("IPv4StaticAddress", "lan", { interface: "lan", address: "192.168.77.1/24" }),
    res("DHCPv4Client", "isp-a", { interface: "wan-a", routeMetric: 10 }),
    res("DHCPv4Client", "isp-b", { interface: "wan-b", routeMetric: 20 }),
    res("NAT44Rule", "a-masquerade", { egressInterface: "wan-a", sourceRanges: ["192.168.77.0/24"] }),
    res("NAT44Rule", "b-masquerade", { egressInterface: "wan-b", sourceRanges: ["192.168.77.0/24"] }),
  ]);
  // The LAN address first, as a running router has it before its DHCP clients start.
  router.startServe();
});

afterAll(async () => {
  await router?.cleanup();
});

describe("two DHCPv4 uplinks behind NAT", () => {
  it("sends both clients' first DISCOVERs (none refused by conntrack) and applies both leases", { timeout: 60_000 }, async () => {
    await until("lease A applied", () => router.addresses(a.wanIf)[0], 30_000);
    await until("lease B applied", () => router.addresses(b.wanIf)[0], 30_000);
    const refused = ["isp-a", "isp-b"].flatMap((i) =>
      readFileSync(join(router.daemonStateDir(i), "daemon.log"), "utf8")
        .split("\n")
        .filter((l) => l.includes('"send failed"')),
    );
    expect(refused).toEqual([]);
    expect(nsExec(router.ns, ["nft", "list", "table", "ip", "routerd_nat"])).toMatch(/udp sport 68 udp dport 67 notrack/);
  });
});
