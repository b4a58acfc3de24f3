// routerd serve keeps its view of the kernel between reconciles, fed by `ip monitor` (the resident inventory):
// a change made behind its back is still noticed and repaired, the view is reused while nothing changes, and
// when the monitor dies serve reads the whole host again and starts a new monitor.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res, routerYaml } from "../lib/config.js";
import { killAll } from "../lib/daemons.js";
import { Netns, tempDir } from "../lib/netns.js";
import { routerctl, startServe, until, type ServeProcess } from "../lib/serve.js";

interface InventoryDetails {
  live: boolean;
  hits: number;
  reads: number;
  resyncs: number;
  monitorStarts: number;
  reason?: string;
}

let ns: Netns;
let tmp: ReturnType<typeof tempDir>;
let serve: ServeProcess;
let dirs: { stateDir: string; runDir: string; root: string };

const ROUTE = "198.18.5.0/24";
const config = routerYaml([
  res("Interface", "lan", { ifname: "lan0" }),
  res("IPv4StaticAddress", "lan", { interface: "lan", address: "10.66.0.1/24" }),
  res("IPv4Route", "far", { destination: ROUTE, gateway: "10.66.0.2", device: "lan" }),
  res("IPAddressSet", "clients", { addresses: ["10.67.0.0/24"] }),
  res("EgressRoutePolicy", "out", { sourceSet: "clients", candidates: [{ name: "a", interface: "lan", gateway: "10.66.0.2", table: 101, mark: "0x101", priority: 1101 }] }),
]);

const inventory = () => {
  const s = routerctl(ns, ["status"], dirs.runDir).json as { details?: { inventory?: InventoryDetails } } | undefined;
  return s?.details?.inventory;
};
const hasRoute = () => ns.ip(`-4 route show ${ROUTE}`).stdout.includes("10.66.0.2");
const hasAddress = () => ns.ip("-4 addr show dev lan0").stdout.includes("10.66.0.1/24");
const hasRule = () => ns.ip("-4 rule show").stdout.includes("1101:");
const allThere = () => hasRoute() && hasAddress() && hasRule();

/** The `ip monitor` serve runs (a child of serve's node process). */
function monitorPid(): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
      if (ppid === serve.child.pid && readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("monitor")) return Number(entry);
    } catch {
      /* gone */
    }
  }
  return undefined;
}

beforeAll(async () => {
  ns = Netns.create("rdinv");
  tmp = tempDir();
  dirs = { stateDir: join(tmp.dir, "state"), runDir: join(tmp.dir, "run"), root: join(tmp.dir, "root") };
  ns.veth("lan0", "lan0p");
  ns.ip("link set lan0 up");
  ns.ip("link set lan0p up");
  writeFileSync(join(tmp.dir, "router.yaml"), config);
  serve = startServe(ns, { config: join(tmp.dir, "router.yaml"), ...dirs });
  await until("address, route and rule applied", allThere, 60_000, 200); // node starts slowly on a loaded machine
  await until("the resident inventory is live", () => inventory()?.live, 30_000, 200);
}, 120_000);

afterAll(async () => {
  await serve?.stop("SIGKILL");
  if (tmp) await killAll(tmp.dir);
  ns?.destroy();
  tmp?.cleanup();
});

describe("routerd serve's resident inventory", () => {
  it("reuses what it observed while nothing changes", async () => {
    const before = (await until("status", inventory))!;
    // Three periodic reconciles (--interval 2s) with no change on the host.
    await new Promise((r) => setTimeout(r, 7_000));
    const after = (await until("status", inventory))!;
    expect(after.live).toBe(true);
    expect(after.hits - before.hits).toBeGreaterThanOrEqual(6);
    expect(after.reads - before.reads).toBeLessThan(after.hits - before.hits);
  }, 30_000);

  it("notices and repairs an address, a route and a rule removed behind its back", async () => {
    ns.ip(`route del ${ROUTE}`);
    ns.ip("rule del priority 1101");
    await until("route and rule repaired", () => hasRoute() && hasRule(), 20_000, 200);
    // Removing the address takes the route through it along, without a notification for the route.
    ns.ip("addr del 10.66.0.1/24 dev lan0");
    await until("gone for a moment", () => !hasRoute() || hasAddress(), 5_000, 20);
    await until("address and the route through it repaired", allThere, 20_000, 200);
    expect(inventory()?.live).toBe(true);
  }, 60_000);

  it("reads the whole host again when its monitor dies, repairs what changed meanwhile, and starts a new monitor", async () => {
    const before = (await until("status", inventory))!;
    const pid = (await until("serve's ip monitor", monitorPid, 10_000, 100))!;
    process.kill(pid, "SIGKILL");
    ns.ip(`route del ${ROUTE}`);
    await until("route repaired", hasRoute, 20_000, 200);
    const events = routerctl(ns, ["events", "--topic", "inventory.fallback"], dirs.runDir).stdout;
    expect(events).toMatch(/monitor ended/);
    const after = await until("a new monitor running", () => {
      const s = inventory();
      return s && s.live && s.monitorStarts > before.monitorStarts ? s : undefined;
    }, 20_000, 200);
    expect(after.resyncs).toBeGreaterThan(before.resyncs);
    expect(monitorPid()).not.toBe(pid);
  }, 60_000);
});
