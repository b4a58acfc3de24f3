// BGPRouter: one BGP speaker (GoBGP, driven by its own routerd-bgp instance) whose best paths routerd writes
// into the kernel FIB under its own route protocol number. Field names follow the original API.
import { ROUTERD_ROUTE_PROTOCOLS, artifactNames } from "@routerd/resource";
import { durationMs, formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { bgpRouterStatus } from "./bgp-status.js";
import { t, type Infer } from "../schema.js";
import { bgpCommunities, bgpExportPolicy, bgpImportPolicy, bgpTimers, ipPrefix } from "./bgp-policy.js";
import { routeTableSchema, tableId } from "./ipv4-route.js";

export const BGP_DAEMON = "bgp";
/** The route protocol routerd-bgp writes its FIB routes with (registered as "routerd-bgp" in rt_protos.d). */
export const BGP_ROUTE_PROTOCOL = 219;
export const BGP_ROUTE_PROTOCOL_NAME = ROUTERD_ROUTE_PROTOCOLS[BGP_ROUTE_PROTOCOL]!;
export const BGP_DEFAULT_METRIC = 20;

const redistributeSource = () => t.object({ allowedPrefixes: t.optional(t.array(ipPrefix())) });

export const bgpRouterSpec = t.object({
  asn: t.int({ min: 1, max: 4294967295 }),
  routerID: formats.ipv4().describe("BGP identifier"),
  backend: t.withDefault(t.enum("gobgp"), "gobgp"),
  listen: t.optional(
    t.object({
      address: t.optional(formats.ip().describe("accept BGP connections on this address only")),
      port: t.optional(t.int({ min: 0, max: 65535 }).describe("0 = do not listen (active sessions only); default 179")),
    }),
  ),
  communities: t.optional(bgpCommunities),
  importPolicy: t.optional(bgpImportPolicy),
  exportPolicy: t.optional(bgpExportPolicy),
  redistribute: t.optional(t.object({ connected: t.optional(redistributeSource()), static: t.optional(redistributeSource()) })),
  gracefulRestart: t.optional(
    t.object({
      enabled: t.withDefault(t.bool(), true),
      restartTime: t.optional(formats.duration()),
      stalePathTime: t.optional(formats.duration()),
    }),
  ),
  timers: t.optional(bgpTimers),
  convergenceProfile: t.optional(t.enum("default", "fast", "stable")),
  vrf: t.optional(formats.ifname().describe("install learned routes into this VRF's table")),
  watcher: t.optional(
    t.object({
      maxPrefixes: t.optional(t.int({ min: 1, max: 10_000_000 })),
      peerStateChangeThrottle: t.optional(formats.duration()),
      pollInterval: t.optional(formats.duration()),
    }),
  ),
  fib: t.optional(
    t.object({
      install: t.withDefault(t.bool().describe("write best paths into the kernel FIB"), true),
      table: t.optional(routeTableSchema.describe("route table (default main, or the VRF's table)")),
      metric: t.withDefault(t.int({ min: 0, max: 4294967295 }), BGP_DEFAULT_METRIC),
    }),
  ),
});

export type BGPRouterSpec = Infer<typeof bgpRouterSpec>;

/** Where the router's FIB routes go: (protocol, table), the unit routerd owns them by. */
export function bgpFibTarget(spec: BGPRouterSpec): { protocol: number; table: number; metric: number; install: boolean } {
  return {
    protocol: BGP_ROUTE_PROTOCOL,
    table: tableId(spec.fib?.table),
    metric: spec.fib?.metric ?? BGP_DEFAULT_METRIC,
    install: spec.fib?.install ?? true,
  };
}

const RESERVED_TABLES = new Set([0, 253, 255]);

export const bgpRouterKind = defineKind<BGPRouterSpec>({
  apiVersion: API_GROUPS.net,
  kind: "BGPRouter",
  description: "A BGP speaker (GoBGP under routerd-bgp); its best paths go into the kernel FIB with routerd's route protocol.",
  class: "route",
  contract: { type: "ArtifactKinds", artifactKinds: ["routerd.daemon", "linux.route.protocol"] },
  supportsWhen: true,
  spec: bgpRouterSpec,
  // Published by routerd-bgp (its status details), read by routerd before planning.
  status: bgpRouterStatus,
  provides: { peers: "objectList", prefixes: "int", establishedPeers: "int", acceptedPrefixes: "int", observedAt: "timestamp" },
  check(res, ctx) {
    const s = res.spec;
    const ip = s.importPolicy;
    if (ip?.allowedPrefixLengthMin !== undefined && ip.allowedPrefixLengthMax !== undefined && ip.allowedPrefixLengthMin > ip.allowedPrefixLengthMax) {
      ctx.error(["importPolicy", "allowedPrefixLengthMin"], `is larger than allowedPrefixLengthMax (${ip.allowedPrefixLengthMax})`);
    }
    const gr = s.gracefulRestart;
    if (gr?.restartTime !== undefined && durationMs(gr.restartTime) > 4095_000) ctx.error(["gracefulRestart", "restartTime"], "must be at most 4095s (a 12-bit field)");
    const table = tableId(s.fib?.table);
    if (RESERVED_TABLES.has(table)) ctx.error(["fib", "table"], `table ${table} is reserved by the kernel`, "use main or a table from 1-252");
    if (s.vrf !== undefined && s.fib?.table !== undefined) ctx.error(["vrf"], "give either vrf or fib.table, not both", "the VRF's table is used when vrf is set");
    if (s.vrf !== undefined) ctx.error(["vrf"], "VRF-bound BGP routers are not supported yet", "remove vrf and give fib.table");
    if (s.watcher?.maxPrefixes !== undefined) ctx.warn(["watcher", "maxPrefixes"], "is not enforced by routerd-bgp yet");
    if (s.watcher?.peerStateChangeThrottle !== undefined) ctx.warn(["watcher", "peerStateChangeThrottle"], "is not used by routerd-bgp: every session transition is an event");
    const peers = ctx.all<{ routerRef: string }>("BGPPeer").filter((p) => p.spec.routerRef === res.metadata.name);
    if (peers.length === 0) ctx.warn([], "no BGPPeer refers to this router (routerRef); it will have no sessions");
  },
  intents(res) {
    const fib = bgpFibTarget(res.spec);
    return [
      {
        kind: "routerd.daemon",
        name: artifactNames.daemon(BGP_DAEMON, res.metadata.name),
        owner: res.owner,
        action: "ensure",
        applyWith: "supervisor",
        attributes: { daemon: BGP_DAEMON, instance: res.metadata.name },
      },
      // Its FIB routes, owned as one artifact (not one per route): removing the router flushes exactly the
      // routes of routerd's protocol in that table.
      ...(fib.install
        ? [
            {
              kind: "linux.route.protocol" as const,
              name: artifactNames.routeProtocol(fib.protocol, fib.table),
              owner: res.owner,
              action: "ensure" as const,
              applyWith: "file",
              attributes: { protocol: fib.protocol, table: fib.table },
            },
          ]
        : []),
    ];
  },
});
