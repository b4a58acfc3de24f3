// Status-sourced values under `routerd serve` (issue 10 §1): the LAN's DHCPv4Server hands out the router
// option from the LAN address (gatewayFrom: IPv4StaticAddress) and the DNS servers and domain the WAN's
// DHCPv4Client leased (dnsServerFrom / domainFrom). When the ISP's DHCP server starts giving another DNS
// server, the client's renewal carries it, and the LAN's DHCP options follow without restarting serve.
// Also shown: serve publishes the values as the resources' status (routerctl status --json), and
// `routerd status --json` prints the same fields.
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res, type ResourceDoc } from "../lib/config.js";
import { Lab, ifname, nsExec } from "../dhcpv4-client/netns.js";
import { Dnsmasq } from "../dhcpv4-client/peers.js";
import { addWan, type Wan } from "../dhcpv4-client/topology.js";
import { Router, ensureBuilt, udhcpc, until } from "./router.js";

const ROUTERD = new URL("../../apps/routerd/bin/routerd.js", import.meta.url).pathname;
const lab = new Lab("d4fol");
let router: Router;
let wan: Wan;
let isp: Dnsmasq | undefined;
let lanNs: string;
let lanIf: string;
const CLIENT_IF = "lanc0";

const resources = (): ResourceDoc[] => [
  res("Interface", "wan", { ifname: wan.wanIf }),
  res("DHCPv4Client", "wan", { interface: "wan" }),
  res("Interface", "lan", { ifname: lanIf }),
  res("IPv4StaticAddress", "lan", { interface: "lan", address: "192.168.70.1/24" }),
  // Written as the original's config would be: no gateway, DNS server or domain of its own.
  res("DHCPv4Server", "lan", {
    interface: "lan",
    rangeStart: "192.168.70.100",
    rangeEnd: "192.168.70.150",
    leaseTime: "2m",
    gatewayFrom: { resource: "IPv4StaticAddress/lan", field: "address" },
    dnsServerFrom: [{ resource: "DHCPv4Client/wan", field: "dnsServers" }],
    domainFrom: { resource: "DHCPv4Client/wan", field: "domain" },
  }),
];

/** The ISP's DHCP server, handing out `dns` and `domain`; T1 of 3 s makes the router's client renew soon. */
async function startIsp(dns: string, domain: string): Promise<Dnsmasq> {
  return Dnsmasq.start(lab, {
    ns: wan.isp,
    iface: wan.ispIf,
    range: "10.78.0.100,10.78.0.150,2m",
    leaseFile: lab.path("isp.leases"),
    extra: [`--dhcp-option=option:dns-server,${dns}`, `--dhcp-option=option:domain-name,${domain}`, "--dhcp-option=option:T1,3", "--dhcp-option=option:T2,6"],
  });
}

const script = () => lab.path("udhcpc.sh");

/** One DHCP exchange on the LAN with busybox udhcpc. */
const lanClient = () => udhcpc(lanNs, CLIENT_IF, script(), lab.path("udhcpc.env"));

beforeAll(async () => {
  ensureBuilt();
  router = new Router(lab);
  wan = addWan(lab, router.ns, "isp", "10.78.0");
  lanNs = lab.netns("lan");
  lanIf = ifname("dl");
  lab.veth(router.ns, lanIf, lanNs, CLIENT_IF);
  writeFileSync(script(), `#!/bin/sh\n[ "$1" = bound ] && env > ${JSON.stringify(lab.path("udhcpc.env"))}\nexit 0\n`);
  chmodSync(script(), 0o755);
  isp = await startIsp("10.78.0.53", "isp-one.test");
  router.writeConfig(resources());
  router.startServe();
});

afterAll(async () => {
  await isp?.stop().catch(() => undefined);
  await router?.cleanup();
  expect(router.leftovers()).toEqual([]);
});

describe("DHCPv4Server options from status (gatewayFrom, dnsServerFrom, domainFrom)", () => {
  it("serves the LAN address as router and the WAN lease's DNS server and domain", { timeout: 60_000 }, async () => {
    await until("dnsmasq running on the LAN", () => router.pid("main", "dnsmasq"), 40_000);
    const got = await until("a LAN lease with the upstream DNS server", () => {
      const r = lanClient();
      return r.dns?.trim() === "10.78.0.53" ? r : undefined;
    }, 30_000, 500);
    expect(got).toMatchObject({ router: "192.168.70.1", domain: "isp-one.test" });
    expect(Number(got.ip?.split(".")[3])).toBeGreaterThanOrEqual(100);

    // serve publishes what the dependents read.
    const client = await until("DHCPv4Client/wan's published lease", async () => {
      const d = await router.published("DHCPv4Client/wan");
      return typeof d?.currentAddress === "string" ? d : undefined;
    });
    expect(client).toMatchObject({ gateway: "10.78.0.1", dnsServers: ["10.78.0.53"], domain: "isp-one.test", interface: "wan", device: wan.wanIf });
    const server = await until("DHCPv4Server/lan's published options", async () => {
      const d = await router.published("DHCPv4Server/lan");
      return Array.isArray(d?.dnsServers) ? d : undefined;
    });
    expect(server).toMatchObject({ interface: lanIf, dnsServers: ["10.78.0.53"], domain: "isp-one.test" });

    // `routerd status --json` prints the same fields without asking serve.
    const out = nsExec(router.ns, [process.execPath, ROUTERD, "status", "--config", router.configPath, "--state-dir", router.stateDir, "--run-dir", router.runDir, "--root", router.root, "--json"]);
    const report = (JSON.parse(out) as { resources: { id: string; status: Record<string, unknown> }[] }).resources;
    expect(report.find((r) => r.id === "DHCPv4Client/wan")?.status).toMatchObject({ currentAddress: client.currentAddress, dnsServers: ["10.78.0.53"] });
    expect(report.find((r) => r.id === "DHCPv4Server/lan")?.status).toMatchObject({ dnsServers: ["10.78.0.53"], domain: "isp-one.test" });
  });

  it("follows a new upstream DNS server and domain after the WAN lease renews, without restarting serve", { timeout: 90_000 }, async () => {
    const servePid = router.serve!.pid;
    await isp!.stop();
    isp = await startIsp("10.78.0.54", "isp-two.test");
    const conf = () => readFileSync(join(router.root, "etc/routerd/dnsmasq.conf"), "utf8");
    await until("the LAN dnsmasq config with the new DNS server", () => conf().includes("10.78.0.54"), 40_000, 250);
    expect(conf()).not.toContain("10.78.0.53");
    const got = await until("a LAN lease with the new DNS server", () => {
      const r = lanClient();
      return r.dns?.trim() === "10.78.0.54" ? r : undefined;
    }, 30_000, 500);
    expect(got).toMatchObject({ router: "192.168.70.1", domain: "isp-two.test" });
    expect(router.serve!.pid).toBe(servePid);
    expect(router.serve!.exitCode).toBeNull();
  });
});
