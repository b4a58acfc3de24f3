// Health-driven uplink failover through `routerd serve` and routerd-healthcheck on real namespaces:
// new connections move within interval × unhealthyThreshold + 1 s; failback waits out the hysteresis.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killAll } from "../lib/daemons.js";
import { routerctl, startServe, until, type ServeProcess } from "../lib/serve.js";
import { TwoUplinks } from "../lib/two-uplinks.mjs";

const INTERVAL_MS = 1000;
const UNHEALTHY_THRESHOLD = 2;
let t: InstanceType<typeof TwoUplinks>;
let serve: ServeProcess;

beforeAll(async () => {
  t = new TwoUplinks();
  t.writeConfig({ failbackDelay: "3s" });
  serve = startServe(t.router, { config: t.config, ...t.dirs });
  const health = () => routerctl(t.router, ["health"], t.dirs.runDir).json as { name: string; phase: string }[] | undefined;
  await until("both uplinks healthy", () => health()?.filter((p) => p.phase === "Healthy").length === 2, 30_000, 200);
  await until("LAN traffic leaves through isp1", () => t.currentUplink() === 1, 10_000, 200);
});
afterAll(async () => {
  await serve?.stop("SIGKILL");
  if (t) {
    await killAll(t.dirs.runDir);
    t.destroy();
  }
});

describe("uplink failover", () => {
  it("moves new connections to the other uplink within interval × unhealthyThreshold + 1 s", async () => {
    // The moment the router marks new LAN connections for isp2 is read from the policy table itself
    // (cheap to poll); then a real new connection proves the traffic moved.
    const marksIsp2 = () => /@set_lan_clients ct state new ct mark set 0x0*102\b/.test(t.router.exec("nft", ["list", "table", "ip", "routerd_policy"]).stdout);
    t.cut(1);
    const cutAt = Date.now();
    await until("new connections are marked for isp2", marksIsp2, 10_000, 50);
    const failover = Date.now() - cutAt;
    expect(failover).toBeLessThanOrEqual(INTERVAL_MS * UNHEALTHY_THRESHOLD + 1000);
    expect(t.currentUplink()).toBe(2);
    const events = routerctl(t.router, ["events", "--topic", "egress"], t.dirs.runDir);
    expect(events.stdout).toContain('"to":"isp2"');
  });

  it("fails back only after the recovered uplink stayed healthy for failbackDelay", async () => {
    t.heal(1);
    const healedAt = Date.now();
    // Healthy needs 2 good probes (~2 s); then 3 s of failbackDelay. Before that, traffic stays on isp2.
    await new Promise((r) => setTimeout(r, 2500));
    expect(t.currentUplink()).toBe(2);
    await until("back on isp1", () => t.currentUplink() === 1, 15_000, 200);
    expect(Date.now() - healedAt).toBeGreaterThanOrEqual(3000);
  });
});
