// VirtualAddress mode: vrrp under `routerd serve` on two routers sharing a bridge with a client: keepalived
// rendered, owned and supervised by routerd; the address moves to the backup within 3 × advertisement
// interval + 1 s when the master's tracked HealthCheck fails or the master dies, and comes back (preempt).
import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { killAll } from "../lib/daemons.js";
import { routerctl, startServe, until, type ServeProcess } from "../lib/serve.js";
import { LanLab, type LanHost } from "../lib/lan.js";

const ADVERT_MS = 1000;
const FAILOVER_BUDGET_MS = 3 * ADVERT_MS + 1000;
const VRID = randomInt(1, 255);

let lab: LanLab;
let a: LanHost;
let b: LanHost;
let client: LanHost;
const serves = new Map<LanHost, ServeProcess>();
let vip: string;

/** Without a penalty a failed check puts the router in FAULT: it sends priority 0 and the backup takes over at
 * once (after its skew time). With a penalty the master only advertises a lower priority, which a backup
 * ignores until its master-down timer runs out (RFC 5798 6.4.2): that is checked in the config only. */
function routerConfig(h: LanHost, priority: number): void {
  LanLab.writeConfig(h, [
    res("HealthCheck", "upstream", { type: "icmp", target: client.address, interval: "500ms", timeout: "300ms", healthyThreshold: 2, unhealthyThreshold: 2 }),
    res("VirtualAddress", "gw", {
      family: "ipv4",
      interface: "lan",
      address: `${vip}/24`,
      mode: "vrrp",
      vrrp: { virtualRouterID: VRID, priority, advertisementInterval: `${ADVERT_MS}ms` },
      track: [{ resource: "HealthCheck/upstream" }],
    }),
  ]);
}

const serve = (h: LanHost) => serves.set(h, startServe(h.ns, { config: h.config, ...h.dirs }));
const holder = () => [a, b].filter((h) => LanLab.hasAddress(h, vip));
const verdict = (h: LanHost) => {
  try {
    return readFileSync(join(h.dirs.stateDir, "healthcheck/default/verdicts/upstream"), "utf8").trim();
  } catch {
    return undefined;
  }
};
type Status = { resources?: { name: string; message?: string; details?: { role?: string } }[] };
const role = (h: LanHost) => (routerctl(h.ns, ["status"], h.dirs.runDir).json as Status | undefined)?.resources?.find((r) => r.name === "VirtualAddress/gw")?.details?.role;

/** Polls every 50 ms until `h` alone holds the address; the time it took. */
async function movesTo(h: LanHost, budgetMs: number, from = Date.now()): Promise<number> {
  await until(`the address on ${h.ns.name} only`, () => holder().length === 1 && holder()[0] === h, budgetMs + 10_000, 50);
  return Date.now() - from;
}

beforeAll(async () => {
  lab = new LanLab();
  a = lab.add("vr-a", 1);
  b = lab.add("vr-b", 2);
  client = lab.add("vr-c", 100);
  vip = `${lab.net}.254`;
  routerConfig(a, 150);
  routerConfig(b, 100);
  serve(a);
  serve(b);
}, 30_000);

afterAll(async () => {
  for (const s of serves.values()) await s.stop("SIGKILL");
  if (lab) {
    for (const h of lab.hosts) await killAll(h.dir);
    lab.destroy();
  }
});

describe("VirtualAddress mode: vrrp (keepalived)", () => {
  it("the higher priority router holds the address; both report their roles; the client reaches it", async () => {
    await until("A holds the address", () => holder().length === 1 && holder()[0] === a, 60_000, 200);
    await until("roles in routerctl status", () => role(a) === "MASTER" && role(b) === "BACKUP", 30_000, 300);
    // keepalived's config is routerd's, under its state dir.
    const conf = readFileSync(join(a.dirs.stateDir, "keepalived/default/keepalived.conf"), "utf8");
    expect(conf).toContain(`virtual_router_id ${VRID}`);
    expect(conf).toContain("priority 150");
    expect(client.ns.exec("ping", ["-c", "1", "-W", "1", vip], { allowFail: true }).code).toBe(0);
    expect(LanLab.neighbour(client, vip)).toBe(LanLab.mac(a));
  });

  it("moves to the backup when the master's tracked check fails, within 3 × advertisement interval + 1 s", async () => {
    await until("A's check healthy", () => verdict(a) === "Healthy", 30_000);
    const added = LanLab.addressAdded(b, vip, 30_000);
    a.ns.ip(`route add blackhole ${client.address}/32`);
    const failed = await until("A's check Unhealthy", () => (verdict(a) === "Unhealthy" ? Date.now() : undefined), 20_000, 20);
    const took = (await added) - failed;
    expect(took).toBeLessThanOrEqual(FAILOVER_BUDGET_MS);
    await movesTo(b, 10_000);
    // keepalived's gratuitous ARP moved the client's neighbour entry to B.
    await until("client's neighbour entry on B", () => LanLab.neighbour(client, vip) === LanLab.mac(b), 5000);
    await until("roles: A in FAULT (its check), B MASTER", () => role(a) === "FAULT" && role(b) === "MASTER", 30_000, 300);
    console.info(`tracked check failed -> address on the backup: ${took} ms (budget ${FAILOVER_BUDGET_MS} ms)`);
  }, 60_000);

  it("comes back to the master once its check is healthy again (preempt)", async () => {
    a.ns.ip(`route del blackhole ${client.address}/32`);
    await until("A's check healthy", () => verdict(a) === "Healthy", 30_000);
    await movesTo(a, FAILOVER_BUDGET_MS);
  }, 60_000);

  it("moves to the backup when the master dies, within 3 × advertisement interval + 1 s", async () => {
    // A dead router: serve and its daemons killed, its link silent (a killed keepalived leaves its address).
    await serves.get(a)!.stop("SIGKILL");
    const added = LanLab.addressAdded(b, vip, 30_000);
    a.ns.ip(`link set ${a.ifname} down`);
    const died = Date.now();
    await killAll(a.dir);
    const took = (await added) - died;
    expect(took).toBeLessThanOrEqual(FAILOVER_BUDGET_MS);
    console.info(`master died -> address on the backup: ${took} ms (budget ${FAILOVER_BUDGET_MS} ms)`);
  }, 60_000);

  it("goes back to the master when it returns (preempt)", async () => {
    a.ns.ip(`addr flush dev ${a.ifname} to ${vip}/32`);
    a.ns.ip(`link set ${a.ifname} up`);
    serve(a);
    await movesTo(a, 60_000);
    await until("client's neighbour entry back on A", () => LanLab.neighbour(client, vip) === LanLab.mac(a), 10_000);
  }, 90_000);

  it("removing the VirtualAddress stops keepalived, which gives the address up", async () => {
    LanLab.writeConfig(b, [res("HealthCheck", "upstream", { type: "icmp", target: client.address })]);
    await until("B's keepalived stopped", () => !readPids(b).length, 30_000, 200);
    LanLab.writeConfig(a, [res("HealthCheck", "upstream", { type: "icmp", target: client.address })]);
    await until("A's keepalived stopped and the address gone", () => !readPids(a).length && holder().length === 0, 30_000, 200);
  }, 60_000);
});

/** keepalived processes of a router (their command line names its state dir). */
function readPids(h: LanHost): number[] {
  const out: number[] = [];
  for (const pid of h.ns.exec("ip", ["netns", "pids", h.ns.name], { allowFail: true }).stdout.split("\n").filter(Boolean)) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (argv[0]!.endsWith("keepalived") && argv.some((x) => x.startsWith(h.dir))) out.push(Number(pid));
    } catch {
      /* gone */
    }
  }
  return out;
}
