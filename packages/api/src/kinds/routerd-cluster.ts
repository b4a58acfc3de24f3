import { durationMs, formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";

export const routerdClusterSpec = t.object(
  {
    leasePath: t.withDefault(t.string({ pattern: /^\/[^\0]*[^/]$/, patternHint: "an absolute file path" }).describe("lease file shared by the nodes"), "/var/lib/routerd/cluster/lease"),
    ttl: t.withDefault(formats.duration(), "15s"),
    nodeName: t.optional(t.string({ pattern: /^[A-Za-z0-9._-]{1,63}$/, patternHint: "a node name" }).describe("default: the host name")),
    peers: t.optional(t.array(t.string({ pattern: /^[A-Za-z0-9._-]{1,63}$/, patternHint: "a node name" }), { minItems: 1, unique: true }).describe("the node names sharing the lease (for checking nodeName)")),
  },
  { aliases: { leaseTTL: "ttl", identity: "nodeName" } },
);

export type RouterdClusterSpec = Infer<typeof routerdClusterSpec>;

export const routerdClusterKind = defineKind<RouterdClusterSpec>({
  apiVersion: API_GROUPS.system,
  kind: "RouterdCluster",
  description: "Active/standby routerd nodes sharing a file lease: only the leader changes the host.",
  class: "cluster",
  contract: { type: "TeardownLifecycle", teardown: "resource", artifactKinds: ["routerd.lease"] },
  supportsWhen: true,
  spec: routerdClusterSpec,
  provides: { leader: "string", leaseExpiresAt: "timestamp" },
  check(res, ctx) {
    const all = ctx.all("RouterdCluster");
    if (all[0] !== res) ctx.error([], `only one RouterdCluster is allowed (first is RouterdCluster/${all[0]!.metadata.name})`);
    if (durationMs(res.spec.ttl) < 3000) ctx.error(["ttl"], "must be at least 3s (the lease is refreshed every ttl/3)");
    const { nodeName, peers } = res.spec;
    if (nodeName && peers && !peers.includes(nodeName)) ctx.warn(["nodeName"], `${nodeName} is not among peers (${peers.join(", ")})`);
  },
  intents: (res) => [
    {
      kind: "routerd.lease",
      name: res.spec.leasePath,
      owner: res.owner,
      action: "ensure",
      applyWith: "lease",
      attributes: { path: res.spec.leasePath, ttlMs: durationMs(res.spec.ttl) },
    },
  ],
});
