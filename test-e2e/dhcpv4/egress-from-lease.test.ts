// An EgressRoutePolicy written as for the original routerd (issue 10 §1, §3): its candidates take their
// gateways from the uplinks' DHCPv4 leases (gatewayFrom: DHCPv4Client/...), their health checks probe the
// lease's router (targetSource: defaultGateway), and no candidate names a table, mark or priority. routerd
// picks the numbers inside its ranges, routes each table via the leased router, and fails over as before
// when one uplink dies; the policy's status says which candidate carries new connections.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { ROUTERCTL } from "../lib/serve.js";
import { Lab, nsExec } from "../dhcpv4-client/netns.js";
import { Dnsmasq } from "../dhcpv4-client/peers.js";
import { addWan, type Wan } from "../dhcpv4-client/topology.js";
import { Router, ensureBuilt, until } from "./router.js";

const INTERVAL_MS = 1000;
const UNHEALTHY_THRESHOLD = 2;
const lab = new Lab("d4egr");
let router: Router;
let a: Wan;
let b: Wan;
const servers: Dnsmasq[] = [];

interface Rule {
  priority: number;
  fwmark?: string;
  table?: string;
}

/** The fwmark rules on the router: candidate → {mark, table, priority}, found by the table's default route. */
function candidateRules(): Map<string, { mark: number; table: number; priority: number }> {
  const out = new Map<string, { mark: number; table: number; priority: number }>();
  const rules = JSON.parse(nsExec(router.ns, ["ip", "-j", "-4", "rule", "show"])) as Rule[];
  for (const r of rules) {
    if (!r.fwmark || !r.table || !/^\d+$/.test(r.table)) continue;
    const routes = JSON.parse(nsExec(router.ns, ["ip", "-j", "-4", "route", "show", "table", r.table])) as { dst: string; gateway?: string }[];
    const via = routes.find((x) => x.dst === "default")?.gateway;
    const name = via === "10.73.0.1" ? "a" : via === "10.74.0.1" ? "b" : undefined;
    if (name) out.set(name, { mark: Number(r.fwmark), table: Number(r.table), priority: r.priority });
  }
  return out;
}

/** The mark new LAN connections get now, from the policy table. */
function markedWith(): number | undefined {
  const table = nsExec(router.ns, ["nft", "list", "table", "ip", "routerd_policy"]);
  const m = /ip saddr 192\.168\.80\.0\/24 ct state new ct mark set (0x[0-9a-f]+)/.exec(table);
  return m ? Number(m[1]) : undefined;
}

const policyStatus = () => router.published("EgressRoutePolicy/internet");

/** When routerd-healthcheck last changed a probe's state (routerctl health). */
function probeSince(name: string): string | undefined {
  const out = nsExec(router.ns, [process.execPath, ROUTERCTL, "health", "--run-dir", router.runDir, "--json"]);
  const probe = (JSON.parse(out) as { name: string; details?: { since?: string } }[]).find((p) => p.name === name);
  return probe?.details?.since;
}

beforeAll(async () => {
  ensureBuilt();
  router = new Router(lab);
  a = addWan(lab, router.ns, "ispa", "10.73.0");
  b = addWan(lab, router.ns, "ispb", "10.74.0");
  for (const [w, net] of [[a, "10.73.0"], [b, "10.74.0"]] as const) {
    servers.push(await Dnsmasq.start(lab, { ns: w.isp, iface: w.ispIf, range: `${net}.100,${net}.150,2m`, leaseFile: lab.path(`${w.isp}.leases`) }));
  }
  const check = (iface: string) => ({ interface: iface, targetSource: "defaultGateway", type: "ping", protocol: "icmp", role: "next-hop", interval: `${INTERVAL_MS}ms`, timeout: "500ms", healthyThreshold: 2, unhealthyThreshold: UNHEALTHY_THRESHOLD });
  router.writeConfig([
    res("Interface", "wan-a", { ifname: a.wanIf, managed: true }),
    res("Interface", "wan-b", { ifname: b.wanIf, managed: true }),
    res("DHCPv4Client", "wan-a", { interface: "wan-a", useDNS: false, useRoutes: false }),
    res("DHCPv4Client", "wan-b", { interface: "wan-b", useDNS: false, useRoutes: false }),
    res("HealthCheck", "wan-a-gw", check("wan-a")),
    res("HealthCheck", "wan-b-gw", check("wan-b")),
    res("EgressRoutePolicy", "internet", {
      sourceCIDRs: ["192.168.80.0/24"],
      candidates: [
        { name: "a", interface: "wan-a", gatewayFrom: { resource: "DHCPv4Client/wan-a", field: "gateway" }, healthCheck: "wan-a-gw", weight: 200 },
        { name: "b", interface: "wan-b", gatewaySource: "dhcpv4", gatewayFrom: { resource: "DHCPv4Client/wan-b", field: "gateway" }, healthCheck: "wan-b-gw", weight: 100 },
      ],
    }),
  ]);
  router.startServe();
});

afterAll(async () => {
  for (const s of servers) await s.stop().catch(() => undefined);
  await router?.cleanup();
  expect(router.leftovers()).toEqual([]);
});

describe("EgressRoutePolicy with gateways from the leases and no numbers", () => {
  it("allocates table, mark and priority in routerd's ranges and routes each table via its lease's router", { timeout: 60_000 }, async () => {
    const rules = await until("a rule and a routed table per candidate", () => {
      const r = candidateRules();
      return r.size === 2 ? r : undefined;
    }, 45_000, 250);
    for (const [name, n] of rules) {
      expect(n.mark, name).toBeGreaterThanOrEqual(0x101);
      expect(n.mark, name).toBeLessThanOrEqual(0x196);
      expect(n.table, name).toBeGreaterThanOrEqual(100);
      expect(n.table, name).toBeLessThanOrEqual(249);
      expect(n.priority, name).toBeGreaterThanOrEqual(20000);
      expect(n.priority, name).toBeLessThanOrEqual(20149);
    }
    expect(rules.get("a")!.mark).not.toBe(rules.get("b")!.mark);
    expect(rules.get("a")!.table).not.toBe(rules.get("b")!.table);
    await until("new LAN connections marked for a (the higher weight)", () => markedWith() === rules.get("a")!.mark, 20_000, 200);
    const status = await until("the policy's published status", async () => {
      const s = await policyStatus();
      return s?.selectedCandidate === "a" ? s : undefined;
    });
    expect(status).toMatchObject({ selectedCandidate: "a", selectedGateway: "10.73.0.1", selectedRouteTable: rules.get("a")!.table });
  });

  it("fails over to b within interval × unhealthyThreshold + 1 s when a's router stops answering", { timeout: 60_000 }, async () => {
    const rules = candidateRules();
    nsExec(a.isp, ["nft", "add table inet cut; add chain inet cut in { type filter hook input priority -10; policy drop; }"]);
    try {
      const cutAt = Date.now();
      await until("new LAN connections marked for b", () => markedWith() === rules.get("b")!.mark, 15_000, 50);
      const elapsed = Date.now() - cutAt;
      // Split the time so a failure says whether the probe or routerd's reconcile was slow.
      const unhealthyAfter = Date.parse(probeSince("wan-a-gw") ?? "") - cutAt;
      expect(elapsed, `probe Unhealthy after ${unhealthyAfter} ms, policy changed after ${elapsed} ms`).toBeLessThanOrEqual(INTERVAL_MS * UNHEALTHY_THRESHOLD + 1000);
      const status = await until("the policy's status names b", async () => {
        const s = await policyStatus();
        return s?.selectedCandidate === "b" ? s : undefined;
      });
      expect(status).toMatchObject({ selectedGateway: "10.74.0.1", selectedRouteTable: rules.get("b")!.table });
      // The numbers stay what they were: the ledger remembers them.
      expect(candidateRules()).toEqual(rules);
    } finally {
      nsExec(a.isp, ["nft", "delete", "table", "inet", "cut"]);
    }
  });
});
