import { MAIN_TABLE, artifactNames } from "@routerd/resource";
import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { dependsOn, fromSource } from "../status-source.js";

export const routeTableSchema = t.union<number | string>(
  "a table id (1-252, 256-4294967295) or \"main\"",
  t.string({ pattern: /^main$/ }),
  t.int({ min: 1, max: 4294967295 }),
);

export function tableId(value: number | string | undefined): number {
  return value === undefined || value === "main" ? MAIN_TABLE : (value as number);
}

export const ipv4RouteSpec = t.object({
  destination: formats.ipv4Cidr().describe("destination prefix, or \"default\""),
  gateway: t.optional(formats.ipv4().describe("next hop")),
  gatewayFrom: t.optional(fromSource({ format: "ipv4", into: "gateway" }).describe("the next hop from another resource's status, e.g. {resource: DHCPv4Client/wan, field: gateway}")),
  device: t.optional(t.interfaceRef().describe("the interface to route out of")),
  deviceFrom: t.optional(fromSource({ format: "ifname", into: "device" }).describe("the device from status, e.g. {resource: Interface/wan, field: ifname}")),
  preferredSource: t.optional(formats.ipv4().describe("preferred source address of the route (ip route ... src)")),
  dependsOn: t.optional(dependsOn().describe("stay Pending, keeping what exists, until these hold")),
  metric: t.withDefault(t.int({ min: 0, max: 4294967295 }), 0),
  table: t.withDefault(routeTableSchema, "main"),
  type: t.withDefault(t.enum("unicast", "blackhole"), "unicast"),
});

export type IPv4RouteSpec = Infer<typeof ipv4RouteSpec>;

const RESERVED = new Set([0, 253, 255]);

export const ipv4RouteKind = defineKind<IPv4RouteSpec>({
  apiVersion: API_GROUPS.net,
  kind: "IPv4Route",
  description: "A static IPv4 route in the main or a numbered table.",
  class: "route",
  contract: { type: "ArtifactKinds", artifactKinds: ["linux.ipv4.route"] },
  supportsWhen: true,
  spec: ipv4RouteSpec,
  status: (res, ctx) => {
    const s = res.spec;
    return { fields: { type: s.type, destination: s.destination, device: s.device && ctx.ifname(s.device), gateway: s.gateway, preferredSource: s.preferredSource, metric: s.metric, dryRun: false } };
  },
  provides: { type: "string", destination: "string", device: "string", gateway: "string", preferredSource: "string", metric: "int", dryRun: "bool" },
  check(res, ctx) {
    const s = res.spec;
    if (s.type === "unicast" && !s.gateway && !s.device && !s.gatewayFrom && !s.deviceFrom) {
      ctx.error([], "a unicast route needs a gateway, a device or both");
    }
    if (s.type === "blackhole" && (s.gateway || s.device || s.gatewayFrom || s.deviceFrom || s.preferredSource)) {
      ctx.error([s.gateway ? "gateway" : s.device ? "device" : s.gatewayFrom ? "gatewayFrom" : s.deviceFrom ? "deviceFrom" : "preferredSource"], "a blackhole route takes no gateway, device or preferred source");
    }
    const id = tableId(s.table);
    if (RESERVED.has(id)) ctx.error(["table"], `table ${id} is reserved by the kernel`, "use main or a table from 1-252");
  },
  intents(res, ctx) {
    const s = res.spec;
    const table = tableId(s.table);
    return [
      {
        kind: "linux.ipv4.route",
        name: artifactNames.route(table, s.destination, s.metric),
        owner: res.owner,
        action: "ensure",
        applyWith: "ip-batch",
        attributes: {
          table,
          destination: s.destination,
          metric: s.metric,
          type: s.type,
          ...(s.gateway ? { gateway: s.gateway } : {}),
          ...(s.device ? { device: ctx.ifname(s.device) } : {}),
          ...(s.preferredSource && s.type !== "blackhole" ? { preferredSource: s.preferredSource } : {}),
        },
      },
    ];
  },
});
