// ClusterNetworkRoute through `routerd reconcile`: a router and two "nodes" on one bridge. The Pod and
// Service CIDRs become routerd's routes: ECMP multipath with the weights when several next hops, a plain
// route with one; next-hop changes rewrite them, removal deletes exactly them (a foreign route stays).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { LanLab, type LanHost } from "../lib/lan.js";
import { routerd } from "../lib/netns.js";

let lab: LanLab;
let router: LanHost;
let n1: LanHost;
let n2: LanHost;
const SERVICE_IP = "10.96.0.10";
const POD6 = "fd00:10:244:1::1";

type Route = { dst: string; gateway?: string; dev?: string; protocol?: string; nexthops?: { gateway: string; dev: string; weight: number }[] };
const route = (family: "-4" | "-6", dst: string) => (JSON.parse(router.ns.ip(`-j ${family} route show ${dst}`).stdout) as Route[])[0];
const run = (args: string[]) => routerd(router.ns, args, { stateDir: router.dirs.stateDir, root: router.dirs.root });
const reconcile = () => run(["reconcile", "--once", "--config", router.config]);

function writeRoute(via: { host: LanHost; v6?: boolean; weight?: number }[]): void {
  LanLab.writeConfig(router, [
    res("ClusterNetworkRoute", "k8s", {
      pods: { cidrs: ["10.244.0.0/16", "fd00:10:244::/56"] },
      services: { cidrs: ["10.96.0.0/12"] },
      via: via.map((v) => ({ interface: "lan", nextHop: v.v6 ? v.host.address6 : v.host.address, ...(v.weight ? { weight: v.weight } : {}) })),
    }),
  ]);
}

beforeAll(() => {
  lab = new LanLab();
  router = lab.add("cr-r", 1);
  n1 = lab.add("cr-n1", 11);
  n2 = lab.add("cr-n2", 12);
  // Both nodes answer for these (on lo, as an anycast service address would be): any path reaches one.
  for (const n of [n1, n2]) {
    n.ns.ip(`addr add ${SERVICE_IP}/32 dev lo`);
    n.ns.ip(`addr add ${POD6}/128 dev lo`);
  }
  router.ns.ip(`route add 10.250.0.0/16 via ${n2.address} proto static`);
});

afterAll(() => lab?.destroy());

describe("ClusterNetworkRoute", () => {
  it("routes the CIDRs through the next hops: ECMP with the weights, IPv4 and IPv6", () => {
    writeRoute([{ host: n1, weight: 3 }, { host: n2 }, { host: n1, v6: true }, { host: n2, v6: true, weight: 2 }]);
    const r = reconcile();
    expect(r.code, r.stderr + r.stdout).toBe(0);
    for (const dst of ["10.244.0.0/16", "10.96.0.0/12"]) {
      expect(route("-4", dst)?.nexthops?.map((h) => [h.gateway, h.dev, h.weight])).toEqual([
        [n1.address, "lan0", 3],
        [n2.address, "lan0", 1],
      ]);
    }
    expect(route("-6", "fd00:10:244::/56")?.nexthops?.map((h) => [h.gateway, h.weight])).toEqual([
      [n1.address6, 1],
      [n2.address6, 2],
    ]);
    expect(router.ns.exec("ping", ["-c", "1", "-W", "2", SERVICE_IP], { allowFail: true }).code).toBe(0);
    expect(router.ns.exec("ping", ["-6", "-c", "1", "-W", "2", POD6], { allowFail: true }).code).toBe(0);
  });

  it("is converged: the observed multipath route matches what routerd asked for", () => {
    const plan = run(["plan", "--config", router.config, "--json"]);
    expect(plan.code, plan.stderr).toBe(0);
    expect((JSON.parse(plan.stdout) as { summary: Record<string, number> }).summary).toMatchObject({ create: 0, update: 0, delete: 0 });
  });

  it("next hops taken away: the multipath routes become plain ones", () => {
    writeRoute([{ host: n1 }, { host: n1, v6: true }]);
    expect(reconcile().code).toBe(0);
    const r = route("-4", "10.244.0.0/16")!;
    expect(r.nexthops).toBeUndefined();
    expect(r).toMatchObject({ gateway: n1.address, dev: "lan0" });
    expect(route("-6", "fd00:10:244::/56")).toMatchObject({ gateway: n1.address6, dev: "lan0" });
  });

  it("removing the resource deletes exactly its routes", () => {
    LanLab.writeConfig(router, [res("Sysctl", "keep", { key: "net.ipv4.ip_forward", value: 1 })]);
    const r = reconcile();
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(route("-4", "10.244.0.0/16")).toBeUndefined();
    expect(route("-4", "10.96.0.0/12")).toBeUndefined();
    expect(route("-6", "fd00:10:244::/56")).toBeUndefined();
    expect(route("-4", "10.250.0.0/16")).toMatchObject({ gateway: n2.address, protocol: "static" });
  });
});
