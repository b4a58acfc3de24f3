// One client against kea-dhcp6 with short timers: acquire, renew at T1, rebind at T2 (after the
// server's identity changed), prefix change after a pool change, and RELEASE on SIGTERM.
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientProcess, ensureBuilt, prefixesOf, type Json } from "./support/client.js";
import { Kea } from "./support/kea.js";
import { Lab } from "./support/lab.js";

const lab = new Lab("life");
let kea: Kea;
let client: ClientProcess;
let rtr: string;
const stateDir = lab.path("client");
const subnet = { id: 1, iface: "isp0", subnet: "2001:db8:1::/64", pdPrefix: "2001:db8:1000::", rapidCommit: true };

beforeAll(async () => {
  ensureBuilt();
  const isp = lab.netns("isp");
  rtr = lab.netns("rtr");
  lab.veth(isp, "isp0", rtr, "wan0");
  kea = new Kea(lab, isp, {
    subnets: [subnet],
    optionData: [
      { name: "dns-servers", data: "2001:db8::53" },
      { name: "domain-search", data: "example.net" },
      { name: "aftr-name", data: "aftr.example.net" },
      { name: "sntp-servers", data: "2001:db8::123" },
    ],
  });
  await kea.start();
  client = ClientProcess.start(lab, rtr, ["--interface", "wan0", "--state-dir", stateDir, "--prefix-length", "56"]);
});

afterAll(async () => {
  await lab.cleanup();
});

describe("DHCPv6-PD lifecycle against kea", () => {
  let acquired: Json;

  it("acquires a /56 from the pool with rapid commit, plus DNS, search list, AFTR and SNTP", async () => {
    acquired = await client.waitForEvent("acquired");
    const prefixes = prefixesOf(acquired);
    expect(prefixes).toHaveLength(1);
    expect(prefixes[0]).toMatch(/^2001:db8:10[0-9a-f:]*\/56$/);
    expect(acquired.information).toEqual({
      dnsServers: ["2001:db8::53"],
      domainSearch: ["example.net"],
      sntpServers: ["2001:db8::123"],
      aftrName: "aftr.example.net",
    });
    // Rapid commit: Solicit answered by Reply, no Request.
    expect(client.transmitted("SOLICIT").length).toBeGreaterThanOrEqual(1);
    expect(client.transmitted("REQUEST")).toHaveLength(0);
    // The server's view: one PD lease for our persisted DUID.
    const duid = readFileSync(`${stateDir}/duid`, "utf8").trim();
    const leases = await kea.leases();
    expect(leases.map((l) => [l.type, `${l["ip-address"]}/${l["prefix-len"]}`, l.duid])).toEqual([["IA_PD", prefixes[0], duid]]);
    // And the client's persisted lease.
    const stored = JSON.parse(readFileSync(`${stateDir}/lease.json`, "utf8"));
    expect(stored.lastPrefix).toEqual({ prefix: prefixes[0]!.split("/")[0], length: 56 });
  });

  it("renews at T1 (2 s) with RENEW and keeps the prefix", async () => {
    const renewed = await client.waitForEvent("renewed", 10_000, { after: acquired.receivedAt as number });
    expect(renewed.via).toBe("renew");
    expect(prefixesOf(renewed)).toEqual(prefixesOf(acquired));
    const gap = (renewed.receivedAt as number) - (acquired.receivedAt as number);
    expect(gap).toBeGreaterThanOrEqual(1900);
    expect(client.transmitted("RENEW").length).toBeGreaterThanOrEqual(1);
  });

  it("rebinds at T2 when the server ignores RENEW (its DUID changed) and keeps the prefix", async () => {
    const before = Date.now();
    await kea.reconfigure({ serverIdentifier: "0e0e0e0e" });
    const rebound = await client.waitForEvent("renewed", 15_000, { after: before, match: (e) => e.via === "rebind" });
    expect(prefixesOf(rebound)).toEqual(prefixesOf(acquired));
    expect((rebound.server as { duid: string }).duid).toBe("000200007ed90e0e0e0e");
    const renewsAfter = client.transmitted("RENEW").filter((l) => (l.receivedAt as number) >= before);
    const rebindsAfter = client.transmitted("REBIND").filter((l) => (l.receivedAt as number) >= before);
    expect(renewsAfter.length).toBeGreaterThanOrEqual(1);
    expect(rebindsAfter.length).toBeGreaterThanOrEqual(1);
    expect(rebindsAfter[0]!.receivedAt as number).toBeGreaterThan(renewsAfter[0]!.receivedAt as number);
  });

  it("reports changed when a pool change makes the next renew deliver a new prefix and the old with lifetime 0", async () => {
    const before = Date.now();
    const old = prefixesOf(acquired)[0]!;
    await kea.reconfigure({ subnets: [{ ...subnet, pdPrefix: "2001:db8:2000::" }] });
    const changed = await client.waitForEvent("changed", 15_000, { after: before });
    expect(changed.removed).toEqual([old]);
    const added = changed.added as string[];
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^2001:db8:20/);
    expect(prefixesOf(changed)).toEqual(added);
    const stored = JSON.parse(readFileSync(`${stateDir}/lease.json`, "utf8"));
    expect(`${stored.lastPrefix.prefix}/${stored.lastPrefix.length}`).toBe(added[0]);
  });

  it("sends RELEASE on SIGTERM: the server frees the prefix and the client exits 0", async () => {
    const current = client.events.filter((e) => e.event === "changed").at(-1)!;
    const code = await client.stop();
    expect(code).toBe(0);
    const released = client.events.find((e) => e.event === "released");
    expect(released?.removed).toEqual(prefixesOf(current));
    expect(client.logs.some((l) => l.msg === "release confirmed")).toBe(true);
    const active = (await kea.leases()).filter((l) => l["valid-lft"] > 0 && `${l["ip-address"]}/${l["prefix-len"]}` === prefixesOf(current)[0]);
    expect(active).toEqual([]);
    // The lease is gone from the client's file, the last prefix stays as the next hint.
    const stored = JSON.parse(readFileSync(`${stateDir}/lease.json`, "utf8"));
    expect(stored.lease).toBeNull();
    expect(`${stored.lastPrefix.prefix}/${stored.lastPrefix.length}`).toBe(prefixesOf(current)[0]);
    expect(existsSync(`${stateDir}/lock`)).toBe(false);
  });
});
