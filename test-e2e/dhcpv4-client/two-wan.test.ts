// Two WAN links in one router namespace, each with its own ISP and dnsmasq, and one client per link.
// Both sockets listen on 0.0.0.0:68; SO_BINDTOIFINDEX must keep each to its own link.
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Lab } from "./netns.js";
import { ClientProcess, Dnsmasq, ensureBuilt } from "./peers.js";
import { FAST_CLIENT_ARGS, addWan, type Wan } from "./topology.js";

const PROBE = new URL("./fixtures/udp-probe.mjs", import.meta.url).pathname;
const lab = new Lab("d4two");
let router: string;
let wan1: Wan;
let wan2: Wan;

beforeAll(() => {
  ensureBuilt();
  router = lab.netns("rtr");
  wan1 = addWan(lab, router, "isp1", "10.71.0");
  wan2 = addWan(lab, router, "isp2", "10.72.0");
});

afterAll(async () => {
  await lab.cleanup();
});

describe("two WAN interfaces in one namespace", () => {
  it("delivers each link's broadcasts only to the socket bound to that link (an unbound socket sees both)", async () => {
    const listener = lab.spawn(router, [process.execPath, PROBE, "listen", wan1.wanIf, wan2.wanIf]);
    const lines: string[] = [];
    listener.stdout?.setEncoding("utf8");
    listener.stdout?.on("data", (c: string) => lines.push(...c.split("\n").filter(Boolean)));
    const exited = new Promise((r) => listener.once("exit", r));
    const deadline = Date.now() + 5000;
    while (!lines.some((l) => l.includes("ready")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(lines).toContain('{"ready":true}');
    for (const [w, text] of [[wan1, "via-isp1"], [wan2, "via-isp2"]] as const) {
      execFileSync("ip", ["netns", "exec", w.isp, process.execPath, PROBE, "send", w.ispIf, text]);
    }
    await exited;
    const got = lines.filter((l) => !l.includes("ready")).map((l) => JSON.parse(l) as { who: string; text: string });
    expect(got.filter((g) => g.who === wan1.wanIf).map((g) => g.text)).toEqual(["via-isp1"]);
    expect(got.filter((g) => g.who === wan2.wanIf).map((g) => g.text)).toEqual(["via-isp2"]);
    expect(got.filter((g) => g.who === "unbound").map((g) => g.text).sort()).toEqual(["via-isp1", "via-isp2"]);
  });

  it("runs one client per link, each bound to its own ISP, with no foreign replies seen", { timeout: 60_000 }, async () => {
    const servers = await Promise.all(
      [wan1, wan2].map((w, i) =>
        Dnsmasq.start(lab, { ns: w.isp, iface: w.ispIf, range: `10.7${i + 1}.0.100,10.7${i + 1}.0.150,2m`, leaseFile: lab.path(`isp${i + 1}.leases`), extra: ["--dhcp-option=option:T1,3"] }),
      ),
    );
    const clients = [wan1, wan2].map((w, i) =>
      ClientProcess.start(lab, { ns: router, iface: w.wanIf, stateDir: lab.path(`state${i + 1}`), apply: true, args: FAST_CLIENT_ARGS }),
    );
    const bound = await Promise.all(clients.map((c) => c.next("bound", 20_000)));
    expect(bound[0]?.lease).toMatchObject({ serverId: "10.71.0.1" });
    expect(bound[1]?.lease).toMatchObject({ serverId: "10.72.0.1" });
    expect(bound[0]?.lease?.address).toMatch(/^10\.71\.0\./);
    expect(bound[1]?.lease?.address).toMatch(/^10\.72\.0\./);
    // A renewal each (unicast, from each link's own address) proves the steady state too.
    await Promise.all(clients.map((c) => c.next("renewed", 15_000)));

    for (const c of clients) {
      const foreign = c.logs.filter((l) => l.msg === "ignored" && /mismatch/.test(String(l.reason)));
      expect(foreign).toEqual([]);
      expect(await c.stop()).toBe(0);
    }
    // Each server only ever heard the client on its own link.
    const macOf = (w: Wan): string => execFileSync("ip", ["netns", "exec", router, "cat", `/sys/class/net/${w.wanIf}/address`], { encoding: "utf8" }).trim();
    expect(servers[0]?.lines.filter((l) => / DHCP[A-Z]+\(/.test(l)).every((l) => l.includes(macOf(wan1)))).toBe(true);
    expect(servers[1]?.lines.filter((l) => / DHCP[A-Z]+\(/.test(l)).every((l) => l.includes(macOf(wan2)))).toBe(true);
  });
});
