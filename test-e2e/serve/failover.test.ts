// Health-driven uplink failover through `routerd serve` and routerd-healthcheck on real namespaces:
// new connections move within interval × unhealthyThreshold + 1 s; failback waits out the hysteresis.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killAll } from "../lib/daemons.js";
import { routerctl, startServe, until, type ServeProcess } from "../lib/serve.js";
import { TwoUplinks } from "../lib/two-uplinks.mjs";

const INTERVAL_MS = 1000;
const UNHEALTHY_THRESHOLD = 2;
let t: InstanceType<typeof TwoUplinks>;
let serve: ServeProcess;
const children: ChildProcess[] = [];

// A TCP server on the "internet" address in each ISP that logs what it receives per connection.
const SERVER = `const s=require("net").createServer(c=>c.on("data",d=>require("fs").appendFileSync(process.argv[1],d.toString())));s.listen(7000,"100.64.0.1")`;
// A LAN client that opens one connection, sends "first", and sends "second" on the same connection later.
const CLIENT = `const c=require("net").connect(7000,"100.64.0.1",()=>{c.write("first;");setTimeout(()=>{c.write("second;");setTimeout(()=>c.end(),300)},Number(process.argv[1]))})`;
const inNs = (ns: { name: string }, code: string, arg: string) => {
  const child = spawn("ip", ["netns", "exec", ns.name, process.execPath, "-e", code, arg], { stdio: "ignore" });
  children.push(child);
  return child;
};

beforeAll(async () => {
  t = new TwoUplinks();
  t.writeConfig({ failbackDelay: "3s" });
  serve = startServe(t.router, { config: t.config, ...t.dirs });
  const health = () => routerctl(t.router, ["health"], t.dirs.runDir).json as { name: string; phase: string }[] | undefined;
  await until("both uplinks healthy", () => health()?.filter((p) => p.phase === "Healthy").length === 2, 30_000, 200);
  await until("LAN traffic leaves through isp1", () => t.currentUplink() === 1, 10_000, 200);
});
afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
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

  it("fails back only after the recovered uplink stayed healthy for failbackDelay, without moving existing connections", async () => {
    // A connection opened while isp2 carries traffic must stay on isp2 after failback: conntrack is not flushed.
    const logs = [join(t.tmp, "isp1.log"), join(t.tmp, "isp2.log")];
    inNs(t.isp1, SERVER, logs[0]!);
    inNs(t.isp2, SERVER, logs[1]!);
    await new Promise((r) => setTimeout(r, 500));
    const client = inNs(t.lan, CLIENT, "9000");
    // Listened for now: on a slow machine the client may be done before failback completes.
    const clientExited = new Promise<void>((r) => client.once("exit", () => r()));
    const read = (f: string) => {
      try {
        return readFileSync(f, "utf8");
      } catch {
        return "";
      }
    };
    await until("the connection reached isp2", () => read(logs[1]!).includes("first;"));
    t.heal(1);
    const healedAt = Date.now();
    // Healthy needs 2 good probes (~2 s); then 3 s of failbackDelay. Before that, traffic stays on isp2.
    await new Promise((r) => setTimeout(r, 2500));
    expect(t.currentUplink()).toBe(2);
    await until("back on isp1", () => t.currentUplink() === 1, 15_000, 200);
    expect(Date.now() - healedAt).toBeGreaterThanOrEqual(3000);
    // New connections now use isp1, and the old one still talks through isp2.
    await clientExited;
    expect(read(logs[1]!)).toBe("first;second;");
    expect(read(logs[0]!)).toBe("");
  });
});
