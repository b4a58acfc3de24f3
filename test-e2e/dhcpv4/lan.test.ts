// DHCPv4Server and DHCPv4Reservation through `routerd serve`: routerd writes the managed dnsmasq's config
// (checked with `dnsmasq --test`), runs it with port=0, and derives the firewall hole DHCP needs (the
// input policy here is drop). A "lan" namespace runs busybox udhcpc against it. A changed pool or
// reservation restarts dnsmasq with the new config; an option dnsmasq rejects leaves the old one running.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectDaemon, daemonSocketPath } from "@routerd/rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res, type ResourceDoc } from "../lib/config.js";
import { Lab, ifname, nsExec, sh } from "../dhcpv4-client/netns.js";
import { Router, ensureBuilt, udhcpc, until } from "./router.js";

const lab = new Lab("d4lan");
let router: Router;
let lanNs: string;
let lanIf: string;
const CLIENT_IF = "lanc0";
const RESERVED_MAC = "02:00:00:00:50:01";
const OTHER_MAC = "02:00:00:00:50:02";

interface Reservation {
  ip: string;
  pool: [string, string];
  options?: { code: number; value: string }[];
}

const resources = (r: Reservation): ResourceDoc[] => [
  res("Interface", "lan", { ifname: lanIf }),
  res("IPv4StaticAddress", "lan-addr", { interface: "lan", address: "192.168.50.1/24" }),
  { apiVersion: "firewall.routerd.net/v1alpha1", kind: "FirewallPolicy", name: "default", spec: { defaultInput: "drop" } },
  res("DHCPv4Server", "lan", {
    interface: "lan",
    addressPool: { start: r.pool[0], end: r.pool[1], leaseTime: "2m" },
    dnsServers: ["192.168.50.1", "192.168.50.2"],
    domain: "lan.test",
    options: r.options ?? [],
  }),
  res("DHCPv4Reservation", "printer", { server: "lan", macAddress: RESERVED_MAC, ipAddress: r.ip, hostname: "printer" }),
];

const confPath = () => join(router.root, "etc/routerd/dnsmasq.conf");
const conf = () => (existsSync(confPath()) ? readFileSync(confPath(), "utf8") : "");
const script = () => lab.path("udhcpc.sh");

/** One DHCP exchange with busybox udhcpc; the script records what a stock client would configure. */
function lanClient(mac: string): Record<string, string> {
  nsExec(lanNs, ["ip", "link", "set", CLIENT_IF, "address", mac]);
  return udhcpc(lanNs, CLIENT_IF, script(), lab.path("udhcpc.env"));
}

async function coreResource(name: string) {
  const conn = await connectDaemon(daemonSocketPath(router.runDir, "routerd", "core"), { connectTimeoutMs: 500 });
  try {
    return (await conn.getStatus()).resources.find((r) => r.name === name);
  } finally {
    conn.close();
  }
}

beforeAll(() => {
  ensureBuilt();
  router = new Router(lab);
  lanNs = lab.netns("lan");
  lanIf = ifname("dl");
  lab.veth(router.ns, lanIf, lanNs, CLIENT_IF);
  writeFileSync(script(), `#!/bin/sh\n[ "$1" = bound ] && env > ${JSON.stringify(lab.path("udhcpc.env"))}\nexit 0\n`);
  chmodSync(script(), 0o755);
  router.writeConfig(resources({ ip: "192.168.50.20", pool: ["192.168.50.100", "192.168.50.150"] }));
  router.startServe();
});

afterAll(async () => {
  await router?.cleanup();
  expect(router.leftovers()).toEqual([]);
});

describe("LAN DHCP through routerd's managed dnsmasq", () => {
  it("gives a stock client its reservation, the gateway and the DNS servers", { timeout: 40_000 }, async () => {
    await until("dnsmasq running", () => router.pid("main", "dnsmasq"), 20_000);
    await until("the derived DHCP hole", () => sh(["ip", "netns", "exec", router.ns, "nft", "list", "ruleset"]).split("\n").some((l) => l.includes(lanIf) && l.includes("udp dport 67 accept")));
    expect(conf()).toContain("port=0\n");
    expect(conf()).toContain(`dhcp-host=${RESERVED_MAC},192.168.50.20,printer`);
    // DNS is not this dnsmasq's job: nothing listens on port 53.
    expect(nsExec(router.ns, ["ss", "-Hlnu", "sport = :53"]).trim()).toBe("");
    const got = await until("a lease", () => lanClient(RESERVED_MAC), 20_000, 1000);
    expect(got).toMatchObject({ ip: "192.168.50.20", subnet: "255.255.255.0", router: "192.168.50.1", domain: "lan.test" });
    expect(got.dns?.trim().split(/\s+/)).toEqual(["192.168.50.1", "192.168.50.2"]);
  });

  it("gives a client without a reservation an address from the pool", { timeout: 30_000 }, async () => {
    const got = lanClient(OTHER_MAC);
    const last = Number(got.ip?.split(".")[3]);
    expect(got.ip).toMatch(/^192\.168\.50\./);
    expect(last >= 100 && last <= 150).toBe(true);
    expect(got.router).toBe("192.168.50.1");
  });

  it("restarts dnsmasq with the new config when the pool or a reservation changes", { timeout: 40_000 }, async () => {
    const before = router.pid("main", "dnsmasq")!;
    router.writeConfig(resources({ ip: "192.168.50.21", pool: ["192.168.50.160", "192.168.50.170"] }));
    await until("the new config", () => conf().includes(`dhcp-host=${RESERVED_MAC},192.168.50.21,printer`), 15_000);
    expect(conf()).toContain("192.168.50.160,192.168.50.170");
    await until("a new dnsmasq", () => {
      const p = router.pid("main", "dnsmasq");
      return p !== undefined && p !== before;
    }, 15_000);
    const got = await until("the new reservation served", () => {
      const r = lanClient(RESERVED_MAC);
      return r.ip === "192.168.50.21" ? r : undefined;
    }, 20_000, 500);
    expect(got.router).toBe("192.168.50.1");
    const pool = Number(lanClient(OTHER_MAC).ip?.split(".")[3]);
    expect(pool >= 160 && pool <= 170).toBe(true);
  });

  it("refuses an option dnsmasq rejects: the old config and the running dnsmasq stay", { timeout: 40_000 }, async () => {
    const before = conf();
    const pid = router.pid("main", "dnsmasq")!;
    // Option 3 must be addresses: routerd's schema allows any text, `dnsmasq --test` does not.
    router.writeConfig(resources({ ip: "192.168.50.22", pool: ["192.168.50.160", "192.168.50.170"], options: [{ code: 3, value: "not-an-ip" }] }));
    const failed = await until("the DHCPv4Server reported as failed", async () => {
      const r = await coreResource("DHCPv4Server/lan");
      return r?.phase === "Failed" ? r : undefined;
    }, 15_000);
    expect(failed.message).toContain("dnsmasq --test rejected the new config");
    expect(conf()).toBe(before);
    expect(router.pid("main", "dnsmasq")).toBe(pid);
    expect(lanClient(RESERVED_MAC).ip).toBe("192.168.50.21");
  });
});
