// Other ways of running the client: the 4-message exchange (no rapid commit), IA_NA next to IA_PD,
// stateless Information-request, and DUID types.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientProcess, ensureBuilt, prefixesOf } from "./support/client.js";
import { Kea } from "./support/kea.js";
import { Lab } from "./support/lab.js";

const lab = new Lab("mode");
let rtr: string;
let kea: Kea;

beforeAll(async () => {
  ensureBuilt();
  const isp = lab.netns("isp");
  rtr = lab.netns("rtr");
  lab.veth(isp, "isp0", rtr, "wan0");
  kea = new Kea(lab, isp, {
    subnets: [
      { id: 1, iface: "isp0", subnet: "2001:db8:1::/64", pdPrefix: "2001:db8:1000::", addressPool: "2001:db8:1::100-2001:db8:1::1ff", rapidCommit: false },
    ],
    timers: { renew: 100, rebind: 200, preferred: 300, valid: 600 },
    optionData: [
      { name: "dns-servers", data: "2001:db8::53, 2001:db8::54" },
      { name: "domain-search", data: "example.net, corp.example.org" },
      { name: "aftr-name", data: "aftr.example.net" },
      { name: "sntp-servers", data: "2001:db8::123" },
      { name: "information-refresh-time", data: "700" },
    ],
  });
  await kea.start();
});

afterAll(async () => {
  await lab.cleanup();
});

describe("client modes against kea", () => {
  it("without rapid commit: Solicit, Advertise, Request, Reply; gets a prefix and an address", async () => {
    const c = ClientProcess.start(lab, rtr, ["--interface", "wan0", "--state-dir", lab.path("na"), "--ia-na", "--duid-type", "llt"]);
    const acquired = await c.waitForEvent("acquired");
    expect(prefixesOf(acquired)).toHaveLength(1);
    const addresses = (acquired.addresses as Array<{ address: string }>).map((a) => a.address);
    expect(addresses).toHaveLength(1);
    expect(addresses[0]).toMatch(/^2001:db8:1::1[0-9a-f]{2}$/);
    expect(c.transmitted("SOLICIT").length).toBeGreaterThanOrEqual(1);
    expect(c.transmitted("REQUEST")).toHaveLength(1);
    expect(c.logs.some((l) => l.msg === "advertise")).toBe(true);
    expect(readFileSync(lab.path("na/duid"), "utf8")).toMatch(/^00:01:00:01:/);
    const types = (await kea.leases()).map((l) => l.type).sort();
    expect(types).toEqual(["IA_NA", "IA_PD"]);
    expect(await c.stop()).toBe(0);
    expect((await kea.leases()).filter((l) => l["valid-lft"] > 0)).toEqual([]);
  });

  it("--info-only: Information-request reports DNS, search list, AFTR name and SNTP, takes no lease", async () => {
    const c = ClientProcess.start(lab, rtr, ["--interface", "wan0", "--state-dir", lab.path("info"), "--info-only", "--duid-type", "en"]);
    const info = await c.waitForEvent("information");
    expect(info.information).toEqual({
      dnsServers: ["2001:db8::53", "2001:db8::54"],
      domainSearch: ["example.net", "corp.example.org"],
      sntpServers: ["2001:db8::123"],
      aftrName: "aftr.example.net",
      refreshTime: 700,
    });
    expect(c.transmitted("INFORMATION_REQUEST")).toHaveLength(1);
    expect(c.transmitted("SOLICIT")).toHaveLength(0);
    expect(readFileSync(lab.path("info/duid"), "utf8")).toMatch(/^00:02:00:00:7e:d9:/);
    expect(await c.stop()).toBe(0);
    expect(c.events.map((e) => e.event)).toEqual(["information"]);
  });

  it("keeps the DUID it generated once across restarts, whatever --duid-type says later", async () => {
    const dir = lab.path("keep");
    const first = ClientProcess.start(lab, rtr, ["--interface", "wan0", "--state-dir", dir, "--duid-type", "ll"]);
    await first.waitForEvent("acquired");
    expect(await first.stop()).toBe(0);
    const duid = readFileSync(`${dir}/duid`, "utf8");
    expect(duid).toMatch(/^00:03:00:01:/);
    const second = ClientProcess.start(lab, rtr, ["--interface", "wan0", "--state-dir", dir, "--duid-type", "en"]);
    await second.waitForEvent("acquired");
    expect(await second.stop()).toBe(0);
    expect(readFileSync(`${dir}/duid`, "utf8")).toBe(duid);
    expect(second.logs.some((l) => l.msg === "keeping the stored DUID; delete it to change type")).toBe(true);
  });
});
