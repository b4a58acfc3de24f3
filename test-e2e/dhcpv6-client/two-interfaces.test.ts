// One instance per interface: two clients on two interfaces that carry the SAME link-local address
// (fe80::1) bind [fe80::1%wanA]:546 and [fe80::1%wanB]:546 side by side, and each gets the prefix of
// its own link. A second instance on an interface that is already served cannot bind.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientProcess, ensureBuilt, prefixesOf } from "./support/client.js";
import { Kea } from "./support/kea.js";
import { Lab, sh } from "./support/lab.js";

const lab = new Lab("two");
let rtr: string;

beforeAll(async () => {
  ensureBuilt();
  const isp = lab.netns("isp");
  rtr = lab.netns("rtr");
  lab.veth(isp, "ispA", rtr, "wanA", { linkLocalB: "fe80::1" });
  lab.veth(isp, "ispB", rtr, "wanB", { linkLocalB: "fe80::1" });
  const kea = new Kea(lab, isp, {
    subnets: [
      { id: 1, iface: "ispA", subnet: "2001:db8:a::/64", pdPrefix: "2001:db8:a000::", rapidCommit: true },
      { id: 2, iface: "ispB", subnet: "2001:db8:b::/64", pdPrefix: "2001:db8:b000::", rapidCommit: false },
    ],
    timers: { renew: 2, rebind: 3, preferred: 5, valid: 8 },
  });
  await kea.start();
});

afterAll(async () => {
  await lab.cleanup();
});

describe("two interfaces, same link-local address", () => {
  let a: ClientProcess;
  let b: ClientProcess;

  it("each instance binds its scoped link-local and gets its own link's prefix", async () => {
    a = ClientProcess.start(lab, rtr, ["--interface", "wanA", "--state-dir", lab.path("a")]);
    b = ClientProcess.start(lab, rtr, ["--interface", "wanB", "--state-dir", lab.path("b")]);
    const [ea, eb] = await Promise.all([a.waitForEvent("acquired"), b.waitForEvent("acquired")]);
    expect(prefixesOf(ea)[0]).toMatch(/^2001:db8:a0/);
    expect(prefixesOf(eb)[0]).toMatch(/^2001:db8:b0/);
    const bound = (c: ClientProcess) => c.logs.find((l) => l.msg === "socket bound")?.local;
    expect(bound(a)).toBe("fe80::1%wanA");
    expect(bound(b)).toBe("fe80::1%wanB");
  });

  it("renews on both links without ever seeing the other instance's replies", async () => {
    const since = Date.now();
    await Promise.all([a.waitForEvent("renewed", 10_000, { after: since }), b.waitForEvent("renewed", 10_000, { after: since })]);
    for (const c of [a, b]) {
      const foreign = c.logs.filter((l) => l.msg === "ignored message" || l.msg === "dropped malformed message");
      expect(foreign).toEqual([]);
    }
  });

  it("a second instance on wanA cannot bind port 546 and says why", async () => {
    const dup = ClientProcess.start(lab, rtr, ["--interface", "wanA", "--state-dir", lab.path("dup")]);
    const err = await dup.waitForLog((l) => l.msg === "another DHCPv6 client is bound to port 546 on this interface", "EADDRINUSE error", 10_000);
    expect(err.code).toBe("EADDRINUSE");
    expect(await dup.stop()).toBe(0);
    expect(dup.events).toEqual([]);
    expect(dup.transmitted()).toEqual([]);
  });

  it("follows a changed link-local address: rebinds the socket and verifies the binding with REBIND", async () => {
    sh(["ip", "-n", rtr, "addr", "del", "fe80::1/64", "dev", "wanA"]);
    sh(["ip", "-n", rtr, "addr", "add", "fe80::a/64", "dev", "wanA"]);
    const since = Date.now();
    a.signal("SIGUSR1");
    const renewed = await a.waitForEvent("renewed", 10_000, { after: since });
    // A re-bound socket means the link may have changed: Rebind with Confirm timing (RFC 8415 §18.2.12).
    expect(renewed.via).toBe("rebind");
    expect(prefixesOf(renewed)[0]).toMatch(/^2001:db8:a0/);
    const rebound = a.logs.filter((l) => l.msg === "socket bound").at(-1);
    expect(rebound?.local).toBe("fe80::a%wanA");
    expect(a.logs.some((l) => l.msg === "link-local address changed; rebinding")).toBe(true);
  });

  it("both stop with RELEASE", async () => {
    expect(await a.stop()).toBe(0);
    expect(await b.stop()).toBe(0);
    expect(a.events.at(-1)?.event).toBe("released");
    expect(b.events.at(-1)?.event).toBe("released");
  });
});
