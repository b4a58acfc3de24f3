// ClusterNetworkRoute: validation and the routes it asks for (plain, or ECMP multipath with weights).
import { describe, expect, it } from "vitest";
import { makeConfigView } from "../config-view.js";
import { loadConfig } from "../load.js";
import type { ClusterNetworkRouteSpec } from "./cluster-network-route.js";
import { kindDefinition } from "./index.js";

const HEAD = "apiVersion: routerd.net/v1alpha1\nkind: Router\nmetadata: { name: k8s }\nspec:\n  resources:\n";
const doc = (kind: string, name: string, spec: string) => `    - apiVersion: net.routerd.net/v1alpha1\n      kind: ${kind}\n      metadata: { name: ${name} }\n      spec: ${spec}\n`;
const load = (spec: string) => loadConfig(HEAD + doc("Interface", "lan", "{ ifname: lan0, managed: false }") + doc("ClusterNetworkRoute", "k8s", spec), "router.yaml");
const errors = (spec: string) => load(spec).issues.filter((i) => i.severity === "error").map((i) => `${i.field}: ${i.message}`);
const intents = (spec: string) => {
  const view = makeConfigView(load(spec).config!);
  return kindDefinition("ClusterNetworkRoute")!.intents(view.all<ClusterNetworkRouteSpec>("ClusterNetworkRoute")[0]!, view);
};

describe("ClusterNetworkRoute", () => {
  it("refuses CIDRs without a next hop of their family, bad prefixes and repeated next hops", () => {
    expect(errors('{ pods: { cidrs: ["fd00:10:244::/56"] }, via: [{ interface: lan, nextHop: 192.0.2.11 }] }').join()).toMatch(/no ipv6 next hop for the ipv6 CIDRs \(fd00:10:244::\/56\)/);
    expect(errors("{ pods: { cidrs: [10.244.1.0/16] }, via: [{ interface: lan, nextHop: 192.0.2.11 }] }").join()).toMatch(/host bits set; the network is 10.244.0.0\/16/);
    expect(errors("{ via: [{ interface: lan, nextHop: 192.0.2.11 }] }").join()).toMatch(/has no CIDR to route/);
    expect(errors("{ services: { cidrs: [10.96.0.0/12] }, via: [{ interface: lan, nextHop: 192.0.2.11 }, { interface: lan, nextHop: 192.0.2.11 }] }").join()).toMatch(/listed twice/);
    expect(errors("{ pods: { cidrs: [10.244.0.0/16] }, via: [{ interface: lan, nextHop: 192.0.2.11, weight: 0 }] }").length).toBe(1);
  });

  it("one next hop: a plain route; several: one multipath route with the weights, in a canonical order", () => {
    expect(intents("{ services: { cidrs: [10.96.0.0/12] }, via: [{ interface: lan, nextHop: 192.0.2.11, weight: 5 }] }")).toEqual([
      expect.objectContaining({ kind: "linux.ipv4.route", name: "table=254,dst=10.96.0.0/12,metric=0", attributes: { table: 254, destination: "10.96.0.0/12", metric: 0, type: "unicast", gateway: "192.0.2.11", device: "lan0" } }),
    ]);
    const spec = '{ pods: { cidrs: [10.244.0.0/16, "FD00:10:244:0::/56"] }, services: { cidrs: [10.244.0.0/16] }, via: [{ interface: lan, nextHop: 192.0.2.12 }, { interface: lan, nextHop: 192.0.2.11, weight: 3 }, { interface: lan, nextHop: "fd00::11" }] }';
    expect(intents(spec).map((i) => [i.kind, i.name, i.attributes])).toEqual([
      ["linux.ipv4.route", "table=254,dst=10.244.0.0/16,metric=0", { table: 254, destination: "10.244.0.0/16", metric: 0, type: "unicast", nexthops: [{ gateway: "192.0.2.11", device: "lan0", weight: 3 }, { gateway: "192.0.2.12", device: "lan0", weight: 1 }] }],
      ["linux.ipv6.route", "table=254,dst=fd00:10:244::/56,metric=1024", { table: 254, destination: "fd00:10:244::/56", metric: 1024, type: "unicast", gateway: "fd00::11", device: "lan0" }],
    ]);
  });
});
