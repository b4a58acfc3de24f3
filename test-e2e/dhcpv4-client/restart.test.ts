// A restarted client keeps its address: INIT-REBOOT with the lease from <state-dir>, confirmed by the server
// (no DISCOVER at all), or, when no server answers, used as is until it runs out.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Lab } from "./netns.js";
import { ClientProcess, Dnsmasq, ensureBuilt } from "./peers.js";
import { FAST_CLIENT_ARGS, addWan, type Wan } from "./topology.js";

const lab = new Lab("d4rst");
let wan: Wan;
let router: string;
let server: Dnsmasq;
let address = "";
const stateDir = (): string => lab.path("state");
const start = (extra: string[] = []): ClientProcess =>
  ClientProcess.start(lab, { ns: router, iface: wan.wanIf, stateDir: stateDir(), apply: true, args: [...FAST_CLIENT_ARGS, ...extra] });

beforeAll(async () => {
  ensureBuilt();
  router = lab.netns("rtr");
  wan = addWan(lab, router, "isp", "10.77.0");
  server = await Dnsmasq.start(lab, { ns: wan.isp, iface: wan.ispIf, range: "10.77.0.100,10.77.0.150,2m", leaseFile: lab.path("isp.leases") });
});

afterAll(async () => {
  await lab.cleanup();
});

describe("client restart", () => {
  it("keeps the lease file when stopped with --no-release", async () => {
    const first = start(["--no-release"]);
    address = (await first.next("bound", 15_000)).lease?.address as string;
    expect(await first.stop()).toBe(0);
    expect(first.events.map((e) => e.event)).toEqual(["bound"]);
    const stored = JSON.parse(readFileSync(join(stateDir(), "lease.json"), "utf8")) as { interface: string; lease: { address: string } };
    expect(stored).toMatchObject({ interface: wan.wanIf, lease: { address } });
    expect(server.dhcp("DHCPRELEASE")).toEqual([]);
  });

  it("gets the same address back through INIT-REBOOT, without DISCOVER", async () => {
    const from = server.lines.length;
    const second = start(["--no-release"]);
    const bound = await second.next("bound", 15_000);
    expect(bound.lease?.address).toBe(address);
    expect(bound.resumed).toBeUndefined();
    const sends = second.logs.filter((l) => l.msg === "send").map((l) => l.what);
    expect(sends).toEqual(["REQUEST(init-reboot)"]);
    const seen = server.lines.slice(from).filter((l) => / DHCP[A-Z]+\(/.test(l));
    expect(seen.map((l) => /DHCP[A-Z]+/.exec(l)?.[0])).toEqual(["DHCPREQUEST", "DHCPACK"]);
    expect(await second.stop()).toBe(0);
  });

  it("uses the unexpired stored lease when no server answers the INIT-REBOOT", async () => {
    await server.stop();
    const third = start(["--reboot-attempts", "2"]);
    const bound = await third.next("bound", 15_000);
    expect(bound).toMatchObject({ resumed: true, lease: { address } });
    expect(third.logs.filter((l) => l.msg === "send").map((l) => l.what)).toEqual(["REQUEST(init-reboot)", "REQUEST(init-reboot)"]);
    // Server back: the next renewal is answered and the lease goes on.
    server = await Dnsmasq.start(lab, { ns: wan.isp, iface: wan.ispIf, range: "10.77.0.100,10.77.0.150,2m", leaseFile: lab.path("isp.leases") });
    process.kill(third.child.pid as number, "SIGUSR1");
    const renewed = await third.next("renewed", 15_000);
    expect(renewed.lease?.address).toBe(address);

    // RELEASE on stop (the default) removes the lease from dnsmasq and from the state dir.
    expect(server.leases().map((l) => l.address)).toEqual([address]);
    expect(await third.stop()).toBe(0);
    expect(third.events.at(-1)?.event).toBe("released");
    await server.waitForLog(/DHCPRELEASE\(/, 5000);
    expect(server.leases()).toEqual([]);
    expect(existsSync(join(stateDir(), "lease.json"))).toBe(false);
  });
});
