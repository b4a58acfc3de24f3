import { FWMARK_MAX, FWMARK_MIN, artifactNames, type ArtifactIntent } from "@routerd/resource";
import { formats, fwmarkValue } from "../formats.js";
import { API_GROUPS, defineKind, type ConfigView, type PublishedStatus } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { RESOURCE_ID, dependsOn, fromSource } from "../status-source.js";
import { dhcpClientOn, leaseRoutes } from "./dhcpv4-client.js";
import { nftTableIntent } from "../tables.js";

const only = <T extends string>(allowed: T, message: string, hint: string) => (v: string) => (v === allowed ? undefined : { message: `${JSON.stringify(v)}: ${message}`, hint });

export const egressCandidateSpec = t.object(
  {
    name: t.string({ pattern: /^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$/, patternHint: "a short lowercase name" }),
    interface: t.optional(t.interfaceRef().describe("the uplink (or device / deviceFrom)")),
    device: t.optional(formats.ifname().describe("the uplink's Linux device name, when no interface resource describes it")),
    deviceFrom: t.optional(fromSource({ format: "ifname", into: "device" }).describe("the device from status, e.g. {resource: Interface/wan, field: ifname}")),
    gateway: t.optional(formats.ipv4()),
    gatewayFrom: t.optional(fromSource({ format: "ipv4", into: "gateway" }).describe("the next hop from status, e.g. {resource: DHCPv4Client/wan, field: gateway}")),
    gatewaySource: t.optional(
      t.checked(t.enum("static", "dhcpv4", "dhcpv6", "none"), (v) => (v === "dhcpv6" ? { message: "an IPv4 policy has no DHCPv6 gateway", hint: "use dhcpv4, static or none" } : undefined)).describe(
        "static: gateway; dhcpv4: the lease of the DHCPv4Client on the interface; none: a device route (default: static with a gateway, dhcpv4 with a client on the interface, else none)",
      ),
    ),
    table: t.optional(t.int({ min: 1, max: 252 }).describe("route table holding this uplink's default route (default: allocated)")),
    mark: t.optional(formats.fwmark().describe("fwmark in routerd's range 0x100-0x1ff (default: allocated)")),
    priority: t.optional(t.int({ min: 2, max: 32765 }).describe("ip rule priority (default: allocated); the policy puts a main-table rule just before the lowest")),
    metric: t.withDefault(t.int({ min: 0, max: 4294967295 }).describe("metric of the default route in the candidate's table"), 0),
    weight: t.withDefault(t.int({ min: 0, max: 1000 }).describe("highest-weight healthy candidate carries new traffic"), 100),
    healthCheck: t.optional(t.ref("HealthCheck")),
    enabled: t.withDefault(t.bool().describe("false: left out of selection and rendering"), true),
    source: t.optional(t.string({ pattern: RESOURCE_ID, patternHint: "Kind/name" }).describe("the resource this uplink stands for (published as selectedSource)")),
    dependsOn: t.optional(dependsOn().describe("stay Pending, keeping what exists, until these hold")),
    targets: t.refused("several targets per candidate (hash mode) are not supported", "write one candidate per uplink"),
    preferredSource: t.refused("preferredSource applies to IPv6 policies, which routerd does not route by policy yet", "remove preferredSource"),
    when: t.refused("a candidate has no when of its own here", "put dependsOn on the candidate, or when on the policy"),
  },
  { aliases: { routeTable: "table", routeMetric: "metric" } },
);

export const egressRoutePolicySpec = t.object(
  {
    family: t.withDefault(t.checked(t.enum("ipv4", "ipv6"), (v) => (v === "ipv6" ? { message: "IPv6 policy routing is not supported yet", hint: "write family: ipv4 (or leave it out)" } : undefined)), "ipv4"),
    mode: t.optional(t.checked(t.enum("priority", "mark", "hash"), only("priority", "only one candidate at a time carries new connections here", "remove mode (priority is what routerd does)"))),
    selection: t.optional(t.checked(t.enum("highest-weight-ready", "weighted-ecmp"), only("highest-weight-ready", "spreading traffic over candidates is not supported", "remove selection"))),
    sourceCIDRs: t.withDefault(t.array(formats.ipv4Cidr(), { unique: true }), []),
    sourceSet: t.optional(t.ref("IPAddressSet")),
    destinationCIDRs: t.withDefault(t.array(formats.ipv4Cidr(), { unique: true }), []),
    destinationSet: t.optional(t.ref("IPAddressSet")),
    destinationSetRefs: t.withDefault(t.array(t.ref("IPAddressSet"), { unique: true }).describe("more IPAddressSets of destinations (the original's list form)"), []),
    excludeDestinationCIDRs: t.withDefault(t.array(formats.ipv4Cidr(), { unique: true }).describe("traffic to these keeps the main table"), []),
    excludeDestinationSetRefs: t.withDefault(t.array(t.ref("IPAddressSet"), { unique: true }), []),
    /** After the preferred candidate recovers, wait this long before moving traffic back to it. */
    failbackDelay: t.withDefault(formats.duration(), "10s"),
    hostTraffic: t.optional(
      t.checked(t.bool(), (v) => (v ? { message: "routerd's policy marks forwarded traffic only", hint: "remove hostTraffic; the router's own traffic uses the main table" } : undefined)),
    ),
    hashFields: t.refused("hash mode is not supported", "remove hashFields"),
    candidates: t.array(egressCandidateSpec, { minItems: 1 }),
  },
  { aliases: { hysteresis: "failbackDelay" } },
);

export type EgressRoutePolicySpec = Infer<typeof egressRoutePolicySpec>;
export type EgressCandidate = EgressRoutePolicySpec["candidates"][number];
/** A candidate with its numbers (configured or allocated). */
export type NumberedCandidate = EgressCandidate & { table: number; mark: number | string; priority: number };

/** The candidates that take part: enabled ones. */
export function liveCandidates(spec: EgressRoutePolicySpec): EgressCandidate[] {
  return spec.candidates.filter((c) => c.enabled);
}

/** The Linux device of a candidate: its interface's ifname, or its device. */
export function candidateDevice(c: EgressCandidate, ctx: ConfigView): string {
  return c.device ?? ctx.ifname(c.interface!);
}

/** How the candidate's next hop is found (the original's gatewaySource, with routerd's default). */
export function gatewaySourceOf(c: EgressCandidate, ctx: ConfigView): "static" | "dhcpv4" | "none" {
  if (c.gatewaySource && c.gatewaySource !== "dhcpv6") return c.gatewaySource;
  if (c.gateway) return "static";
  return c.interface && dhcpClientOn(ctx, c.interface) ? "dhcpv4" : "none";
}

/** The candidate's next hop: its gateway, or the router of the lease of a DHCPv4Client on its interface. */
export function candidateGateway(c: EgressCandidate, ctx: ConfigView): { gateway?: string; waiting: boolean; source: string } {
  const source = gatewaySourceOf(c, ctx);
  if (source === "static") return { ...(c.gateway ? { gateway: c.gateway } : {}), waiting: !c.gateway, source };
  if (source === "none") return { waiting: false, source };
  const client = c.interface ? dhcpClientOn(ctx, c.interface) : undefined;
  const lease = client ? ctx.runtime.dhcpv4Lease(client.metadata.name) : undefined;
  const gateway = lease?.state === "present" ? leaseRoutes(lease.value).find((r) => r.destination === "0.0.0.0/0")?.gateway : undefined;
  return { ...(gateway ? { gateway } : {}), waiting: !gateway, source };
}

/** What the policy publishes: its candidates, and the one carrying new connections (highest weight unless serve says otherwise). */
function egressStatus(spec: EgressRoutePolicySpec, ctx: ConfigView, chosen: unknown): PublishedStatus {
  const candidates = liveCandidates(spec).map((c) => {
    const gw = candidateGateway(c, ctx);
    return {
      name: c.name,
      interface: c.interface,
      device: candidateDevice(c, ctx),
      gateway: gw.gateway,
      gatewaySource: gw.source,
      table: c.table,
      mark: c.mark === undefined ? undefined : fwmarkValue(c.mark),
      priority: c.priority,
      metric: c.metric,
      weight: c.weight,
      healthCheck: c.healthCheck,
      source: c.source,
    };
  });
  const selected = candidates.find((c) => c.name === chosen) ?? [...candidates].sort((a, b) => b.weight - a.weight)[0];
  return {
    fields: {
      family: spec.family,
      candidates,
      dryRun: false,
      ...(selected
        ? {
            selectedCandidate: selected.name,
            selectedSource: selected.source,
            selectedDevice: selected.device,
            selectedInterface: selected.interface,
            selectedGateway: selected.gateway,
            selectedGatewaySource: selected.gatewaySource,
            selectedRouteTable: selected.table,
            selectedWeight: selected.weight,
            selectedMetric: selected.metric,
          }
        : {}),
    },
  };
}

export const egressRoutePolicyKind = defineKind<EgressRoutePolicySpec>({
  apiVersion: API_GROUPS.net,
  kind: "EgressRoutePolicy",
  description:
    "Send matching traffic out of the best healthy uplink: fwmark rules, per-uplink route tables and nft marking. Candidates without table, mark or priority get them allocated (stable, recorded in the ledger).",
  class: "policy-routing",
  contract: {
    type: "ArtifactKinds",
    artifactKinds: ["nft.table", "linux.ipv4.fwmarkRule", "linux.ipv4.routeTable", "linux.ipv4.route", "linux.sysctl"],
  },
  supportsWhen: true,
  spec: egressRoutePolicySpec,
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
  status: (res, ctx, facts) => egressStatus(res.spec, ctx, facts?.selectedCandidate),
  check(res, ctx) {
    const seen = { name: new Map<string, number>(), mark: new Map<number, number>(), table: new Map<number, number>(), priority: new Map<number, number>() };
    res.spec.candidates.forEach((c, i) => {
      if (!c.interface && !c.device && !c.deviceFrom) ctx.error(["candidates", i], "needs an interface, a device or a deviceFrom");
      if (c.interface && (c.device || c.deviceFrom)) ctx.error(["candidates", i, c.device ? "device" : "deviceFrom"], "the interface names the device already", "keep one of interface and device/deviceFrom");
      if (c.gatewaySource === "static" && !c.gateway && !c.gatewayFrom) ctx.error(["candidates", i, "gatewaySource"], "static needs gateway or gatewayFrom");
      if (c.gatewaySource === "dhcpv4" && (!c.interface || !dhcpClientOn(ctx, c.interface))) ctx.error(["candidates", i, "gatewaySource"], "dhcpv4 needs a DHCPv4Client on the candidate's interface");
      if (c.gatewaySource === "none" && (c.gateway || c.gatewayFrom)) ctx.error(["candidates", i, "gatewaySource"], "none takes no gateway", "remove gateway, or write gatewaySource: static");
      if (c.source) {
        const [kind, name] = c.source.split("/") as [string, string];
        if (!ctx.find(kind, name)) ctx.error(["candidates", i, "source"], `${c.source} is not defined`);
      }
      const mark = c.mark === undefined ? undefined : fwmarkValue(c.mark);
      if (mark !== undefined && (mark < FWMARK_MIN || mark > FWMARK_MAX)) {
        ctx.error(["candidates", i, "mark"], `mark 0x${mark.toString(16)} is outside routerd's range 0x100-0x1ff`, "leave mark out to have one allocated");
      }
      for (const [field, value] of [["name", c.name], ["mark", mark], ["table", c.table], ["priority", c.priority]] as const) {
        if (value === undefined) continue;
        const map = seen[field] as Map<string | number, number>;
        const first = map.get(value);
        if (first !== undefined) ctx.error(["candidates", i, field], `same ${field} as candidates[${first}]`);
        else map.set(value, i);
      }
    });
    if (!res.spec.candidates.some((c) => c.enabled)) ctx.warn(["candidates"], "every candidate is disabled: the policy routes nothing");
    for (const other of ctx.all<EgressRoutePolicySpec>("EgressRoutePolicy")) {
      if (other.index >= res.index) continue;
      res.spec.candidates.forEach((c, i) => {
        for (const oc of other.spec.candidates) {
          if (oc.mark !== undefined && c.mark !== undefined && fwmarkValue(oc.mark) === fwmarkValue(c.mark)) ctx.error(["candidates", i, "mark"], `mark is already used by EgressRoutePolicy/${other.metadata.name}`);
          if (oc.priority !== undefined && oc.priority === c.priority) ctx.error(["candidates", i, "priority"], `priority is already used by EgressRoutePolicy/${other.metadata.name}`);
        }
      });
    }
  },
  intents(res, ctx) {
    // Numbers are filled in (configured or allocated) before intents are asked for: see egress-numbers.ts.
    const live = liveCandidates(res.spec) as NumberedCandidate[];
    if (!live.length || live.some((c) => c.table === undefined || c.mark === undefined || c.priority === undefined)) return [nftTableIntent("policy", res.owner)];
    // Before the per-uplink rules: marked traffic still reaches connected and more specific routes of the main
    // table (another LAN, say); only its default route is skipped.
    const first = Math.min(...live.map((c) => c.priority)) - 1;
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
    for (const c of live) {
      const mark = fwmarkValue(c.mark);
      const device = candidateDevice(c, ctx);
      const { gateway, waiting } = candidateGateway(c, ctx);
      if (waiting) continue; // no lease yet: the candidate has no route until it has one
      out.push(
        { kind: "linux.ipv4.routeTable", name: artifactNames.routeTable(c.table), owner: res.owner, action: "ensure", applyWith: "ip-batch", attributes: { table: c.table } },
        {
          kind: "linux.ipv4.route",
          name: artifactNames.route(c.table, "0.0.0.0/0", c.metric),
          owner: res.owner,
          action: "ensure",
          applyWith: "ip-batch",
          attributes: { table: c.table, destination: "0.0.0.0/0", metric: c.metric, type: "unicast", device, ...(gateway ? { gateway } : {}) },
        },
        {
          kind: "linux.ipv4.fwmarkRule",
          name: artifactNames.fwmarkRule(c.priority, mark, c.table),
          owner: res.owner,
          action: "ensure",
          applyWith: "ip-batch",
          // `candidate` ties allocated numbers to the candidate in the ledger: they survive restarts and reordering.
          attributes: { priority: c.priority, mark, table: c.table, candidate: c.name },
        },
      );
    }
    return out;
  },
});
