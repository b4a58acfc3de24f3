// A lease from dnsmasq with its options, renewal at T1 (unicast), rebinding at T2 (broadcast) when the
// server ignores unicast, and RELEASE on stop, all against real dnsmasq in a namespace.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Lab, nsExec } from "./netns.js";
import { ClientProcess, Dnsmasq, ensureBuilt } from "./peers.js";
import { FAST_CLIENT_ARGS, addWan, type Wan } from "./topology.js";

const lab = new Lab("d4acq");
let wan: Wan;
let router: string;
let server: Dnsmasq;
let client: ClientProcess;

beforeAll(async () => {
  ensureBuilt();
  router = lab.netns("rtr");
  wan = addWan(lab, router, "isp", "10.77.0");
  server = await Dnsmasq.start(lab, {
    ns: wan.isp,
    iface: wan.ispIf,
    range: "10.77.0.100,10.77.0.150,2m",
    leaseFile: lab.path("isp.leases"),
    extra: [
      "--dhcp-option=option:dns-server,10.77.0.53,10.77.0.54",
      "--dhcp-option=option:domain-name,isp.test",
      "--dhcp-option=option:mtu,1492",
      "--dhcp-option=option:ntp-server,10.77.0.123",
      "--dhcp-option=121,198.51.100.0/24,10.77.0.2,0.0.0.0/0,10.77.0.1",
      "--dhcp-option=option:T1,4",
      "--dhcp-option=option:T2,8",
    ],
  });
});

afterAll(async () => {
  await lab.cleanup();
});

describe("routerd-dhcpv4-client against dnsmasq", () => {
  it("acquires a lease with its options and reports it as one JSON line", async () => {
    client = ClientProcess.start(lab, {
      ns: router,
      iface: wan.wanIf,
      stateDir: lab.path("state"),
      apply: true,
      args: ["--hostname", "cpe-e2e", "--vendor-class", "routerd-e2e", ...FAST_CLIENT_ARGS],
    });
    const bound = await client.next("bound", 15_000);
    const mac = nsExec(router, ["cat", `/sys/class/net/${wan.wanIf}/address`]).trim();
    expect(bound.interface).toBe(wan.wanIf);
    expect(bound.lease).toMatchObject({
      subnetMask: "255.255.255.0",
      prefixLength: 24,
      serverId: "10.77.0.1",
      routers: ["10.77.0.1"],
      dnsServers: ["10.77.0.53", "10.77.0.54"],
      ntpServers: ["10.77.0.123"],
      domainName: "isp.test",
      mtu: 1492,
      leaseTime: 120,
      renewalTime: 4,
      rebindingTime: 8,
      classlessRoutes: [
        { destination: "198.51.100.0", prefixLength: 24, gateway: "10.77.0.2" },
        { destination: "0.0.0.0", prefixLength: 0, gateway: "10.77.0.1" },
      ],
    });
    // RFC 3442: with option 121 present, option 3 is not used for routes.
    expect(bound.lease?.routes).toEqual(bound.lease?.classlessRoutes);
    const address = bound.lease?.address as string;
    const last = Number(address.split(".")[3]);
    expect(address.startsWith("10.77.0.") && last >= 100 && last <= 150).toBe(true);

    // dnsmasq recorded our hostname, client identifier (01 + MAC) and vendor class.
    expect(server.leases()).toEqual([expect.objectContaining({ address, mac, hostname: "cpe-e2e", clientId: `01:${mac}` })]);
    expect(server.lines.some((l) => l.includes("vendor class: routerd-e2e"))).toBe(true);
    expect(server.dhcp("DHCPDISCOVER").length).toBeGreaterThanOrEqual(1);
  });

  it("renews by unicast to the server at T1", async () => {
    const renewed = await client.next("renewed", 15_000);
    expect(renewed.lease?.address).toBe(client.events[0]?.lease?.address);
    const renewSends = client.logs.filter((l) => l.msg === "send" && l.what === "REQUEST(renewing)");
    expect(renewSends.length).toBeGreaterThanOrEqual(1);
    expect(renewSends[0]?.to).toBe("10.77.0.1");
    expect(client.events.map((e) => e.event)).not.toContain("rebinding");
  });

  it("rebinds by broadcast at T2 when unicast renewals go unanswered", async () => {
    // The ISP drops unicast DHCP from now on: only broadcasts reach dnsmasq.
    nsExec(wan.isp, [
      "nft",
      "add table inet rdtest; add chain inet rdtest input { type filter hook input priority 0; }; " +
        "add rule inet rdtest input udp dport 67 ip daddr != 255.255.255.255 drop",
    ]);
    const rebinding = await client.next("rebinding", 20_000);
    const renewed = await client.next("renewed", 10_000);
    expect(renewed.lease?.address).toBe(rebinding.lease?.address);
    const sends = client.logs.filter((l) => l.msg === "send").map((l) => `${String(l.what)}>${String(l.to)}`);
    const rebindIndex = sends.lastIndexOf("REQUEST(rebinding)>255.255.255.255");
    expect(rebindIndex).toBeGreaterThan(0);
    // Unanswered unicast renewals came first.
    expect(sends.slice(0, rebindIndex).filter((s) => s === "REQUEST(renewing)>10.77.0.1").length).toBeGreaterThanOrEqual(2);
    nsExec(wan.isp, ["nft", "delete table inet rdtest"]);
  });

  it("sends RELEASE on SIGTERM, which removes the lease from dnsmasq's lease file", async () => {
    const address = client.events[0]?.lease?.address as string;
    expect(server.leases().map((l) => l.address)).toEqual([address]);
    const from = server.lines.length;
    expect(await client.stop()).toBe(0);
    expect(client.events.at(-1)?.event).toBe("released");
    await server.waitForLog(/DHCPRELEASE\(/, 5000, from);
    expect(server.leases()).toEqual([]);
  });
});
