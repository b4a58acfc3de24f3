// ClusterNetworkRoute: a Kubernetes cluster's Pod and Service CIDRs routed to its nodes. One route per CIDR
// in the main table; several next hops of the CIDR's family make it an ECMP multipath route whose weights
// share the flows. The routes are routerd's (ledger artifacts) and go with the resource.
import { isIPv4 } from "node:net";
import { MAIN_TABLE, artifactNames, sortNextHops, type ArtifactIntent } from "@routerd/resource";
import { formats, ipv4Network, parseIpv4Prefix } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { hostBits, parseIpv6Prefix } from "./ipv6-prefix.js";

/** The kernel stores an IPv6 route added with metric 0 as 1024: routerd asks for what it will observe. */
const METRIC = { ipv4: 0, ipv6: 1024 } as const;

/** An IPv4 or IPv6 network prefix, host bits zero; IPv6 in its canonical (RFC 5952) form. */
const clusterCidr = () =>
  t.string({
    check: (v) => {
      const p4 = parseIpv4Prefix(v);
      if (p4) return ipv4Network(p4) === p4.address ? undefined : `${v} has host bits set; the network is ${ipv4Network(p4)}/${p4.length}`;
      const p6 = parseIpv6Prefix(v);
      if (!p6) return `${JSON.stringify(v)} is not an IPv4 or IPv6 prefix like 10.244.0.0/16 or fd00:10:244::/56`;
      return hostBits(p6) === 0n ? undefined : `${v} has host bits set`;
    },
    normalize: (v) => {
      const p6 = parseIpv4Prefix(v) ? undefined : parseIpv6Prefix(v);
      return p6 ? `${p6.prefix}/${p6.length}` : v;
    },
  });

const cidrList = t.object({ cidrs: t.withDefault(t.array(clusterCidr(), { unique: true }), []) });

export const clusterNetworkRouteSpec = t.object({
  pods: t.optional(cidrList.describe("the cluster's Pod CIDRs")),
  services: t.optional(cidrList.describe("the cluster's Service CIDRs")),
  via: t
    .array(
      t.object({
        interface: t.interfaceRef().describe("the Interface the next hop is reached on"),
        nextHop: formats.ip().describe("a node (or the cluster's router) on that link"),
        weight: t.withDefault(t.int({ min: 1, max: 256 }).describe("share of flows among the next hops of one family"), 1),
      }),
      { minItems: 1 },
    )
    .describe("next hops; several of one family make an ECMP route"),
});

export type ClusterNetworkRouteSpec = Infer<typeof clusterNetworkRouteSpec>;

type Family = "ipv4" | "ipv6";
const familyOf = (cidrOrAddress: string): Family => (isIPv4(cidrOrAddress.split("/")[0]!) ? "ipv4" : "ipv6");

/** Every CIDR once, Pods first. */
export function clusterCidrs(spec: ClusterNetworkRouteSpec): string[] {
  return [...new Set([...(spec.pods?.cidrs ?? []), ...(spec.services?.cidrs ?? [])])];
}

export const clusterNetworkRouteKind = defineKind<ClusterNetworkRouteSpec>({
  apiVersion: API_GROUPS.net,
  kind: "ClusterNetworkRoute",
  description: "A cluster's Pod and Service CIDRs routed through its nodes (several next hops: ECMP with weights).",
  class: "route",
  contract: { type: "ArtifactKinds", artifactKinds: ["linux.ipv4.route", "linux.ipv6.route"] },
  supportsWhen: true,
  spec: clusterNetworkRouteSpec,
  status: (res) => ({ fields: { pods: res.spec.pods?.cidrs ?? [], services: res.spec.services?.cidrs ?? [] } }),
  provides: { pods: "stringList", services: "stringList" },
  check(res, ctx) {
    const s = res.spec;
    const cidrs = clusterCidrs(s);
    if (cidrs.length === 0) ctx.error([], "has no CIDR to route", "give pods.cidrs, services.cidrs or both");
    for (const family of new Set(cidrs.map(familyOf))) {
      if (!s.via.some((v) => familyOf(v.nextHop) === family)) {
        ctx.error(["via"], `has no ${family} next hop for the ${family} CIDRs (${cidrs.filter((c) => familyOf(c) === family).join(", ")})`);
      }
    }
    const seen = new Set<string>();
    s.via.forEach((v, i) => {
      const key = `${v.interface}/${v.nextHop}`;
      if (seen.has(key)) ctx.error(["via", i], `${v.nextHop} on ${v.interface} is listed twice`, "merge them and add up the weights");
      seen.add(key);
    });
  },
  intents(res, ctx) {
    const s = res.spec;
    return clusterCidrs(s).flatMap((destination): ArtifactIntent[] => {
      const family = familyOf(destination);
      const hops = sortNextHops(s.via.filter((v) => familyOf(v.nextHop) === family).map((v) => ({ gateway: v.nextHop, device: ctx.ifname(v.interface), weight: v.weight })));
      if (!hops.length) return [];
      const metric = METRIC[family];
      // One next hop is a plain route (its weight means nothing alone); several are one multipath route.
      const path = hops.length === 1 ? { gateway: hops[0]!.gateway, device: hops[0]!.device } : { nexthops: hops };
      return [
        {
          kind: family === "ipv4" ? "linux.ipv4.route" : "linux.ipv6.route",
          name: artifactNames.route(MAIN_TABLE, destination, metric),
          owner: res.owner,
          action: "ensure",
          applyWith: "ip-batch",
          attributes: { table: MAIN_TABLE, destination, metric, type: "unicast", ...path },
        },
      ];
    });
  },
});
