// Restarting the client asks for the last delegated prefix again, so the LAN keeps its numbers even when
// the server has forgotten the binding; and after a RELEASE the next start gets the same prefix back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientProcess, ensureBuilt, prefixesOf } from "./support/client.js";
import { Kea } from "./support/kea.js";
import { Lab } from "./support/lab.js";

const lab = new Lab("hint");
let kea: Kea;
let rtr: string;
const stateDir = lab.path("client");
const HINTED = "2001:db8:1000:4200::/56";

beforeAll(async () => {
  ensureBuilt();
  const isp = lab.netns("isp");
  rtr = lab.netns("rtr");
  lab.veth(isp, "isp0", rtr, "wan0");
  // Long lifetimes: nothing expires while the test runs.
  kea = new Kea(lab, isp, {
    subnets: [{ id: 1, iface: "isp0", subnet: "2001:db8:1::/64", pdPrefix: "2001:db8:1000::", rapidCommit: false }],
    timers: { renew: 100, rebind: 200, preferred: 300, valid: 600 },
  });
  await kea.start();
});

afterAll(async () => {
  await lab.cleanup();
});

async function runOnce(args: string[], release: boolean): Promise<string[]> {
  return prefixesOf((await runClient(args, release)).acquired);
}

async function runClient(args: string[], release: boolean) {
  const c = ClientProcess.start(lab, rtr, ["--interface", "wan0", "--state-dir", stateDir, ...args, ...(release ? [] : ["--no-release"])]);
  const acquired = await c.waitForEvent("acquired");
  expect(await c.stop()).toBe(0);
  return { acquired, client: c };
}

describe("prefix hint across restarts", () => {
  it("the server honours an explicit --hint", async () => {
    expect(await runOnce(["--hint", HINTED], false)).toEqual([HINTED]);
  });

  it("a restart with the lease still valid verifies it with REBIND (no SOLICIT) and keeps the prefix", async () => {
    const { acquired, client } = await runClient([], false);
    expect(prefixesOf(acquired)).toEqual([HINTED]);
    const sent = client.transmitted().map((l) => l.message);
    expect(sent[0]).toBe("REBIND");
    expect(sent).not.toContain("SOLICIT");
  });

  it("after a restart without --hint, the client asks for its last prefix and gets it although the server forgot the lease", async () => {
    await kea.wipeLeases();
    expect(await kea.leases()).toEqual([]);
    expect(await runOnce(["--prefix-length", "56"], false)).toEqual([HINTED]);
  });

  it("a client with no history gets a different prefix from the same pool (so the hint made the difference)", async () => {
    // DUID-EN: a DUID-LL would be derived from the same MAC and make this the same client.
    const c = ClientProcess.start(lab, rtr, ["--interface", "wan0", "--state-dir", lab.path("fresh"), "--prefix-length", "56", "--duid-type", "en"]);
    const fresh = prefixesOf(await c.waitForEvent("acquired"));
    expect(await c.stop()).toBe(0);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]).not.toBe(HINTED);
    expect(fresh[0]).toMatch(/^2001:db8:10[0-9a-f:]*\/56$/);
  });

  it("after RELEASE on stop, the next start asks for and gets the same prefix again (4-message exchange)", async () => {
    await kea.wipeLeases();
    expect(await runOnce([], true)).toEqual([HINTED]);
    expect((await kea.leases()).filter((l) => l["valid-lft"] > 0)).toEqual([]);
    const c = ClientProcess.start(lab, rtr, ["--interface", "wan0", "--state-dir", stateDir]);
    expect(prefixesOf(await c.waitForEvent("acquired"))).toEqual([HINTED]);
    expect(c.transmitted("REQUEST").length).toBeGreaterThanOrEqual(1);
    expect(await c.stop()).toBe(0);
  });
});
