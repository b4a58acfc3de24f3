// --arp-check: the server hands out an address that another host already answers ARP for; the client
// probes it (arping -D, sender 0.0.0.0), sends DHCPDECLINE, waits, and binds to another address.
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Lab, sh } from "./netns.js";
import { ClientProcess, Dnsmasq, ensureBuilt } from "./peers.js";
import { FAST_CLIENT_ARGS, addWan, type Wan } from "./topology.js";

const lab = new Lab("d4dec");
let wan: Wan;
let router: string;

function hasArping(): boolean {
  for (const argv of [["arping", "-V"], ["busybox", "arping", "--help"]]) {
    try {
      execFileSync(argv[0] as string, argv.slice(1), { stdio: "ignore" });
      return true;
    } catch (err) {
      // busybox prints usage with exit 1; only a missing program means no arping.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") return true;
    }
  }
  return false;
}

beforeAll(() => {
  ensureBuilt();
  router = lab.netns("rtr");
  wan = addWan(lab, router, "isp", "10.77.0");
  // The "squatter": the ISP box itself also holds .10, so it answers ARP probes for it.
  sh(["ip", "-n", wan.isp, "addr", "add", "10.77.0.10/24", "dev", wan.ispIf]);
});

afterAll(async () => {
  await lab.cleanup();
});

describe("address conflict detection", () => {
  it("declines an address in use and binds to another one", { timeout: 60_000 }, async () => {
    expect(hasArping()).toBe(true);
    const mac = sh(["ip", "netns", "exec", router, "cat", `/sys/class/net/${wan.wanIf}/address`]).trim();
    // A reservation makes dnsmasq offer exactly the address in use; after the DECLINE it falls back to the pool.
    const server = await Dnsmasq.start(lab, {
      ns: wan.isp,
      iface: wan.ispIf,
      range: "10.77.0.100,10.77.0.150,2m",
      leaseFile: lab.path("isp.leases"),
      extra: [`--dhcp-host=${mac},10.77.0.10`],
    });
    const client = ClientProcess.start(lab, {
      ns: router,
      iface: wan.wanIf,
      stateDir: lab.path("state"),
      args: ["--arp-check", "--decline-wait-ms", "1000", ...FAST_CLIENT_ARGS],
    });
    const declined = await client.next("declined", 20_000);
    expect(declined).toMatchObject({ address: "10.77.0.10", serverId: "10.77.0.1" });
    const bound = await client.next("bound", 20_000);
    expect(bound.lease?.address).toMatch(/^10\.77\.0\.1[0-5]\d$/);
    expect(server.dhcp("DHCPDECLINE").map((l) => l.includes("10.77.0.10"))).toEqual([true]);
    // The wait after DECLINE was honoured before discovering again.
    const sends = client.logs.filter((l) => l.msg === "send");
    const decline = sends.find((l) => l.what === "DECLINE");
    const next = sends.find((l) => l.what === "DISCOVER" && Number(l.time) > Number(decline?.time));
    expect(Number(next?.time) - Number(decline?.time)).toBeGreaterThanOrEqual(1000);
    expect(await client.stop()).toBe(0);
  });
});
