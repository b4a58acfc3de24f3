// NTPClient (chrony) with its server from DHCPv6: kea-dhcp6 in the ISP namespace delegates a /56 and hands out
// SNTP servers (option 31); routerd's own routerd-dhcpv6-client takes them into DHCPv6PrefixDelegation's status
// (sntpServers), and an NTPClient with serverFrom that field gets them in routerd's block of
// <root>/etc/chrony/sources.d/routerd.sources. A real chronyd in the router namespace then syncs from a real
// chronyd in the ISP namespace at that IPv6 address (its queries leave from the LAN address numbered from the
// delegation). When the ISP hands out another server, the block follows on the next renew, and chronyd moves
// to the new server; when the ISP stops sending servers, a required source keeps the block, an optional one
// lets fallbackServers in. `chronyc` on serve's PATH is a wrapper that logs each call and runs the real one: the
// test counts the reloads (only when the block changed) while chronyd still does each of them for real.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deriveLanAddress } from "@routerd/api";
import { connectDaemon, daemonSocketPath, type ResourceState } from "@routerd/rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt as ensureClientBuilt } from "../dhcpv6-client/support/client.js";
import { Kea } from "../dhcpv6-client/support/kea.js";
import { res } from "../lib/config.js";
import { ROUTERD } from "../lib/netns.js";
import { Lab, sh } from "../dhcpv4-client/netns.js";
import { Router, ensureBuilt, until } from "../dhcpv4/router.js";
import { chronyc, chronyd, routerChronyd } from "./chronyd.js";

const lab = new Lab("ntp6");
let router: Router;
let kea: Kea;
let isp: string;
const SOURCES = "etc/chrony/sources.d/routerd.sources";
/** Two time servers in the ISP's /64, each its own chronyd (stratum 8 and 9, so `tracking` tells them apart). */
const SERVER_A = "2001:db8:1::123";
const SERVER_B = "2001:db8:1::124";
const POOL = "2001:db8:1000::";
// T1 3 s: renews come often enough to see a changed option soon, and to see that an unchanged one does nothing.
const TIMERS = { renew: 3, rebind: 5, preferred: 40, valid: 60 };
let socket: string;
const reloadLog = () => lab.path("chronyc-calls.log");

const SNTP = { resource: "DHCPv6PrefixDelegation/isp", field: "sntpServers" };
const resources = (ntp: Record<string, unknown> = { serverFrom: [SNTP] }) => [
  res("Interface", "wan", { ifname: "wan0" }),
  res("Interface", "lan", { ifname: "lan0" }),
  res("DHCPv6PrefixDelegation", "isp", { interface: "wan", prefixLength: 56 }),
  res("IPv6DelegatedAddress", "lan6", { prefixDelegation: "isp", interface: "lan", subnetID: 1, announce: false }),
  res("NTPClient", "time", { provider: "chrony", source: "dhcpv6", ...ntp }),
];

/** A time server of the ISP bound to one address (IPv6 sockets only), with its own command socket. */
function timeServer(name: string, address: string, stratum: number): void {
  const run = lab.path(`${name}-run`);
  mkdirSync(run, { mode: 0o750 });
  chronyd(lab, isp, name, [`local stratum ${stratum}`, `bindaddress ${address}`, "allow 2001:db8::/32", `bindcmdaddress ${run}/chronyd.sock`, "cmdport 0", `pidfile ${lab.path(`${name}.pid`)}`], ["-6"]);
}

const client = (args: string[]) => chronyc(router.ns, socket, args);
const block = () => (existsSync(join(router.root, SOURCES)) ? readFileSync(join(router.root, SOURCES), "utf8") : "");
const reloads = () => (existsSync(reloadLog()) ? readFileSync(reloadLog(), "utf8").split("\n").filter((l) => l.endsWith("reload sources")).length : 0);
const serversInUse = async () => (await router.published("NTPClient/time"))?.servers as string[] | undefined;
/** NTPClient/time as serve reports it (phase, message). */
async function ntpState(): Promise<ResourceState | undefined> {
  const conn = await connectDaemon(daemonSocketPath(router.runDir, "routerd", "core"), { connectTimeoutMs: 5000, callTimeoutMs: 5000 });
  try {
    return (await conn.getStatus()).resources.find((r) => r.name === "NTPClient/time");
  } finally {
    conn.close();
  }
}
const renewsSeen = () => (kea.log.match(/DHCP6_PD_LEASE_RENEW/g) ?? []).length;
const selected = (server: string) => new RegExp(`^\\^\\*\\s+${server}\\s`, "m");

async function linkLocal(ns: string, ifname: string): Promise<string> {
  return until(`a link-local address on ${ifname}`, () => {
    const j = JSON.parse(sh(["ip", "-n", ns, "-j", "-6", "addr", "show", "dev", ifname, "scope", "link"])) as { addr_info: { local?: string }[] }[];
    return j[0]?.addr_info.find((a) => a.local)?.local;
  }, 5000, 20);
}

/** `routerd serve` as Router.startServe runs it, with the chronyc wrapper first on its PATH. */
function startServe(): void {
  const bin = lab.path("bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "chronyc"), `#!/bin/sh\necho "$*" >> ${reloadLog()}\nexec /usr/bin/chronyc "$@"\n`);
  chmodSync(join(bin, "chronyc"), 0o755);
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}` };
  router.serve = lab.spawn(router.ns, [process.execPath, ROUTERD, "serve", "--config", router.configPath, "--state-dir", router.stateDir, "--run-dir", router.runDir, "--root", router.root, "--interval", "2s"], env);
  router.serve.stdout?.on("data", (b: Buffer) => router.serveLog.push(b.toString()));
  router.serve.stderr?.on("data", (b: Buffer) => router.serveLog.push(b.toString()));
}

/** The renews kea has answered so far, plus `more`: waiting for them shows what routerd did (or did not do) meanwhile. */
async function renewsPass(more: number): Promise<void> {
  const target = renewsSeen() + more;
  await until(`${more} more renews at kea`, () => renewsSeen() >= target || undefined, (more + 2) * TIMERS.renew * 1000);
}

beforeAll(async () => {
  ensureBuilt();
  ensureClientBuilt();
  router = new Router(lab);
  isp = lab.netns("isp");
  lab.veth(isp, "isp0", router.ns, "wan0");
  lab.veth(router.ns, "lan0", router.ns, "lan0p");
  // The ISP's /64 with its two time servers; what an ISP's RA would give the router (a default route) and the
  // ISP's route back to the delegated prefixes (kea installs none).
  sh(["ip", "-n", isp, "addr", "add", "2001:db8:1::1/64", "dev", "isp0"]);
  for (const a of [SERVER_A, SERVER_B]) sh(["ip", "-n", isp, "addr", "add", `${a}/64`, "dev", "isp0", "nodad"]);
  sh(["ip", "-n", isp, "-6", "route", "add", `${POOL}/36`, "via", await linkLocal(router.ns, "wan0"), "dev", "isp0"]);
  sh(["ip", "-n", router.ns, "-6", "route", "add", "default", "via", await linkLocal(isp, "isp0"), "dev", "wan0"]);
  timeServer("server-a", SERVER_A, 8);
  timeServer("server-b", SERVER_B, 9);
  kea = new Kea(lab, isp, {
    subnets: [{ id: 1, iface: "isp0", subnet: "2001:db8:1::/64", pdPrefix: POOL, rapidCommit: true }],
    timers: TIMERS,
    optionData: [{ name: "sntp-servers", data: SERVER_A }],
  });
  await kea.start();
  socket = await routerChronyd(lab, router);
  router.writeConfig(resources());
  startServe();
}, 180_000);

afterAll(async () => {
  if (process.env.ROUTERD_E2E_DEBUG) process.stderr.write(`${router?.serveLog.join("")}\n${kea?.log}\n`);
  await router?.cleanup();
});

describe("NTPClient (chrony) with servers from DHCPv6 (option 31 through DHCPv6PrefixDelegation's sntpServers)", () => {
  it("writes the delegation's SNTP server into routerd's block, reloads chronyd once, and chronyd syncs from it over IPv6", { timeout: 90_000 }, async () => {
    await until("routerd's sources block", () => block().includes(SERVER_A) || undefined, 45_000);
    expect(block()).toBe(`# BEGIN routerd ntp-time\nserver ${SERVER_A} iburst\n# END routerd ntp-time\n`);
    // serve publishes status at the end of the cycle that wrote the block.
    await until("status: the server in use", async () => (await serversInUse())?.includes(SERVER_A) || undefined, 10_000);
    expect(await serversInUse()).toEqual([SERVER_A]);
    expect((await router.published("NTPClient/time"))?.source).toBe("dhcpv6");
    expect((await router.published("DHCPv6PrefixDelegation/isp"))?.sntpServers).toEqual([SERVER_A]);
    // "^*": chronyd selected the ISP's server (it learnt of it only from the reload); tracking: its stratum 8 + 1.
    await until("chronyd synchronised to the DHCPv6 SNTP server", () => selected(SERVER_A).test(client(["sources"])) || undefined, 40_000);
    const tracking = client(["tracking"]);
    expect(tracking).toMatch(/^Stratum\s*:\s*9$/m);
    expect(tracking).not.toContain("Not synchronised");
    // The server's view: its client is the router's LAN address numbered from the delegation (<prefix>:1::1).
    const prefix = String((await router.published("DHCPv6PrefixDelegation/isp"))?.currentPrefix);
    expect(prefix).toMatch(/^2001:db8:10[0-9a-f:]*\/56$/);
    const lan = deriveLanAddress({ prefix: prefix.split("/")[0]!, length: 56 }, 1n, "::1");
    if (!lan.ok) throw new Error(lan.reason);
    expect(chronyc(isp, `${lab.path("server-a-run")}/chronyd.sock`, ["clients"])).toMatch(new RegExp(`^${lan.address}\\s`, "m"));
    // Renews that bring the same option change nothing: one reload in all.
    await renewsPass(2);
    expect(reloads()).toBe(1);
    expect(block()).toBe(`# BEGIN routerd ntp-time\nserver ${SERVER_A} iburst\n# END routerd ntp-time\n`);
  });

  it("another SNTP server from the ISP: the block follows on the next renew, chronyd is reloaded once and moves to it", { timeout: 90_000 }, async () => {
    await kea.reconfigure({ optionData: [{ name: "sntp-servers", data: SERVER_B }] });
    await until("the new server in routerd's block", () => block().includes(SERVER_B) || undefined, 30_000);
    expect(block()).toBe(`# BEGIN routerd ntp-time\nserver ${SERVER_B} iburst\n# END routerd ntp-time\n`);
    await until("status: the new server in use", async () => (await serversInUse())?.includes(SERVER_B) || undefined, 10_000);
    expect(await serversInUse()).toEqual([SERVER_B]);
    await until("chronyd synchronised to the new server", () => selected(SERVER_B).test(client(["sources"])) || undefined, 40_000);
    expect(client(["sources"])).not.toContain(SERVER_A);
    expect(client(["tracking"])).toMatch(/^Stratum\s*:\s*10$/m);
    await renewsPass(2);
    expect(reloads()).toBe(2);
  });

  it("the ISP stops sending SNTP servers: a required source keeps the block (Pending); marked optional, the fallback takes over", { timeout: 90_000 }, async () => {
    await kea.reconfigure({ optionData: [] });
    await until("the delegation reports no SNTP servers", async () => ((await router.published("DHCPv6PrefixDelegation/isp"))?.sntpServers as string[] | undefined)?.length === 0 || undefined, 30_000);
    await renewsPass(1);
    expect(await until("the NTPClient waiting for its source", async () => ((await ntpState())?.phase === "Pending" ? ntpState() : undefined), 10_000)).toMatchObject({ message: expect.stringContaining("sntpServers") });
    expect(block()).toBe(`# BEGIN routerd ntp-time\nserver ${SERVER_B} iburst\n# END routerd ntp-time\n`);
    expect(reloads()).toBe(2);
    // What docs/ntp.md tells the operator to write (and `routerd check` hints at): the source optional, a fallback.
    router.writeConfig(resources({ serverFrom: [{ ...SNTP, optional: true }], fallbackServers: [SERVER_A] }));
    await until("the fallback server in routerd's block", () => block().includes(SERVER_A) || undefined, 30_000);
    expect(block()).toBe(`# BEGIN routerd ntp-time\nserver ${SERVER_A} iburst\n# END routerd ntp-time\n`);
    await until("status: the fallback server in use", async () => (await serversInUse())?.includes(SERVER_A) || undefined, 10_000);
    expect(await serversInUse()).toEqual([SERVER_A]);
    // status source says the fallback stands in (spec.source is dhcpv6).
    expect((await router.published("NTPClient/time"))?.source).toBe("fallback");
    await until("chronyd back on the fallback server", () => selected(SERVER_A).test(client(["sources"])) || undefined, 40_000);
    expect(client(["sources"])).not.toContain(SERVER_B);
    expect(reloads()).toBe(3);
  });
});
