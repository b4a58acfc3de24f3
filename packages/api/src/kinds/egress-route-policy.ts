import { FWMARK_MAX, FWMARK_MIN, artifactNames, type ArtifactIntent } from "@routerd/resource";
import { formats, fwmarkValue } from "../formats.js";
import { API_GROUPS, defineKind, type ConfigView, type PublishedStatus } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { dhcpClientOn, leaseRoutes } from "./dhcpv4-client.js";
import { nftTableIntent } from "../tables.js";

export const egressCandidateSpec = t.object({
  name: t.string({ pattern: /^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$/, patternHint: "a short lowercase name" }),
  interface: t.interfaceRef(),
  gateway: t.optional(formats.ipv4()),
  table: t.int({ min: 1, max: 252 }).describe("route table holding this uplink's default route"),
  mark: formats.fwmark().describe("fwmark in routerd's range 0x100-0x1ff"),
  priority: t.int({ min: 2, max: 32765 }).describe("ip rule priority (the policy puts a main-table rule just before the lowest)"),
  weight: t.withDefault(t.int({ min: 0, max: 1000 }).describe("highest-weight healthy candidate carries new traffic"), 100),
  healthCheck: t.optional(t.ref("HealthCheck")),
});

export const egressRoutePolicySpec = t.object({
  family: t.withDefault(t.enum("ipv4"), "ipv4"),
  sourceCIDRs: t.withDefault(t.array(formats.ipv4Cidr(), { unique: true }), []),
  sourceSet: t.optional(t.ref("IPAddressSet")),
  destinationCIDRs: t.withDefault(t.array(formats.ipv4Cidr(), { unique: true }), []),
  destinationSet: t.optional(t.ref("IPAddressSet")),
  /** After the preferred candidate recovers, wait this long before moving traffic back to it. */
  failbackDelay: t.withDefault(formats.duration(), "10s"),
  candidates: t.array(egressCandidateSpec, { minItems: 1 }),
});

export type EgressRoutePolicySpec = Infer<typeof egressRoutePolicySpec>;
export type EgressCandidate = EgressRoutePolicySpec["candidates"][number];

/** The candidate's next hop: its gateway, or the router of the lease of a DHCPv4Client on its interface. */
export function candidateGateway(c: EgressCandidate, ctx: ConfigView): { gateway?: string; waiting: boolean; source: string } {
  if (c.gateway) return { gateway: c.gateway, waiting: false, source: "static" };
  const client = dhcpClientOn(ctx, c.interface);
  if (!client) return { waiting: false, source: "none" };
  const lease = ctx.runtime.dhcpv4Lease(client.metadata.name);
  const gateway = lease.state === "present" ? leaseRoutes(lease.value).find((r) => r.destination === "0.0.0.0/0")?.gateway : undefined;
  return { ...(gateway ? { gateway } : {}), waiting: !gateway, source: "dhcpv4" };
}

/** What the policy publishes: its candidates, and the one carrying new connections (highest weight unless serve says otherwise). */
function egressStatus(spec: EgressRoutePolicySpec, ctx: ConfigView, chosen: unknown): PublishedStatus {
  const candidates = spec.candidates.map((c) => {
    const gw = candidateGateway(c, ctx);
    return { name: c.name, interface: c.interface, device: ctx.ifname(c.interface), gateway: gw.gateway, gatewaySource: gw.source, table: c.table, mark: fwmarkValue(c.mark), priority: c.priority, weight: c.weight, healthCheck: c.healthCheck };
  });
  const selected = candidates.find((c) => c.name === chosen) ?? [...candidates].sort((a, b) => b.weight - a.weight)[0]!;
  return {
    fields: {
      family: spec.family,
      selectedCandidate: selected.name,
      selectedDevice: selected.device,
      selectedInterface: selected.interface,
      selectedGateway: selected.gateway,
      selectedGatewaySource: selected.gatewaySource,
      selectedRouteTable: selected.table,
      selectedWeight: selected.weight,
      selectedMetric: 0,
      candidates,
      dryRun: false,
    },
  };
}

export const egressRoutePolicyKind = defineKind<EgressRoutePolicySpec>({
  apiVersion: API_GROUPS.net,
  kind: "EgressRoutePolicy",
  description: "Send matching traffic out of the best healthy uplink: fwmark rules, per-uplink route tables and nft marking.",
  class: "policy-routing",
  contract: {
    type: "ArtifactKinds",
    artifactKinds: ["nft.table", "linux.ipv4.fwmarkRule", "linux.ipv4.routeTable", "linux.ipv4.route", "linux.sysctl"],
  },
  supportsWhen: true,
  spec: egressRoutePolicySpec,
  status: (res, ctx, facts) => egressStatus(res.spec, ctx, facts?.selectedCandidate),
  provides: {
    family: "string",
    selectedCandidate: "string",
    selectedSource: "string",
    selectedDevice: "string",
    selectedGateway: "string",
    selectedGatewaySource: "string",
    selectedRouteTable: "int",
    selectedMetric: "int",
    selectedWeight: "int",
    selectedTargets: "int",
    selectedInterface: "string",
    candidates: "objectList",
    role: "string",
    advisory: "bool",
    lastTransitionAt: "timestamp",
    updatedAt: "timestamp",
    dryRun: "bool",
  },
  check(res, ctx) {
    const seen = { name: new Map<string, number>(), mark: new Map<number, number>(), table: new Map<number, number>(), priority: new Map<number, number>() };
    res.spec.candidates.forEach((c, i) => {
      const mark = fwmarkValue(c.mark);
      if (mark < FWMARK_MIN || mark > FWMARK_MAX) {
        ctx.error(["candidates", i, "mark"], `mark 0x${mark.toString(16)} is outside routerd's range 0x100-0x1ff`);
      }
      for (const [field, value] of [["name", c.name], ["mark", mark], ["table", c.table], ["priority", c.priority]] as const) {
        const map = seen[field] as Map<string | number, number>;
        const first = map.get(value);
        if (first !== undefined) ctx.error(["candidates", i, field], `same ${field} as candidates[${first}]`);
        else map.set(value, i);
      }
    });
    for (const other of ctx.all<EgressRoutePolicySpec>("EgressRoutePolicy")) {
      if (other.index >= res.index) continue;
      res.spec.candidates.forEach((c, i) => {
        for (const oc of other.spec.candidates) {
          if (fwmarkValue(oc.mark) === fwmarkValue(c.mark)) ctx.error(["candidates", i, "mark"], `mark is already used by EgressRoutePolicy/${other.metadata.name}`);
          if (oc.priority === c.priority) ctx.error(["candidates", i, "priority"], `priority is already used by EgressRoutePolicy/${other.metadata.name}`);
        }
      });
    }
  },
  intents(res, ctx) {
    // Before the per-uplink rules: marked traffic still reaches connected and more specific routes of the main
    // table (another LAN, say); only its default route is skipped.
    const first = Math.min(...res.spec.candidates.map((c) => c.priority)) - 1;
    const out: ArtifactIntent[] = [
      nftTableIntent("policy", res.owner),
      // Replies from an uplink carry its mark; reverse-path filtering must look them up in its table.
      { kind: "linux.sysctl", name: "net.ipv4.conf.all.src_valid_mark", owner: res.owner, action: "ensure", applyWith: "sysctl", attributes: { key: "net.ipv4.conf.all.src_valid_mark", value: "1" } },
      {
        kind: "linux.ipv4.fwmarkRule",
        name: artifactNames.fwmarkRule(first, FWMARK_MIN, 254),
        owner: res.owner,
        action: "ensure",
        applyWith: "ip-batch",
        attributes: { priority: first, mark: FWMARK_MIN, mask: FWMARK_MIN, table: 254, suppressPrefixLength: 0 },
      },
    ];
    for (const c of res.spec.candidates) {
      const mark = fwmarkValue(c.mark);
      const device = ctx.ifname(c.interface);
      // Without a configured gateway, an uplink run by DHCPv4Client uses its lease's router.
      const { gateway, waiting } = candidateGateway(c, ctx);
      if (waiting) continue; // no lease yet: the candidate has no route until it has one
      out.push(
        { kind: "linux.ipv4.routeTable", name: artifactNames.routeTable(c.table), owner: res.owner, action: "ensure", applyWith: "ip-batch", attributes: { table: c.table } },
        {
          kind: "linux.ipv4.route",
          name: artifactNames.route(c.table, "0.0.0.0/0", 0),
          owner: res.owner,
          action: "ensure",
          applyWith: "ip-batch",
          attributes: { table: c.table, destination: "0.0.0.0/0", metric: 0, type: "unicast", device, ...(gateway ? { gateway } : {}) },
        },
        {
          kind: "linux.ipv4.fwmarkRule",
          name: artifactNames.fwmarkRule(c.priority, mark, c.table),
          owner: res.owner,
          action: "ensure",
          applyWith: "ip-batch",
          attributes: { priority: c.priority, mark, table: c.table },
        },
      );
    }
    return out;
  },
});
