import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { nftTableIntent } from "../tables.js";

export const firewallRuleSpec = t.object({
  fromZone: t.ref("FirewallZone"),
  toZone: t.union<string>("\"self\" (the router) or a FirewallZone name", t.string({ pattern: /^self$/ }), t.ref("FirewallZone")),
  protocol: t.withDefault(t.enum("any", "tcp", "udp", "icmp"), "any"),
  port: t.optional(formats.portOrRange()),
  sourceCIDRs: t.withDefault(t.array(formats.ipv4Cidr(), { unique: true }), []),
  sourceSet: t.optional(t.ref("IPAddressSet")),
  action: t.enum("accept", "drop", "reject"),
  log: t.withDefault(t.bool(), false),
});

export type FirewallRuleSpec = Infer<typeof firewallRuleSpec>;

export const firewallRuleKind = defineKind<FirewallRuleSpec>({
  apiVersion: API_GROUPS.firewall,
  kind: "FirewallRule",
  description: "Accept, drop or reject traffic from one zone to another zone or to the router itself.",
  class: "firewall",
  contract: { type: "ArtifactKinds", artifactKinds: ["nft.table"] },
  supportsWhen: true,
  spec: firewallRuleSpec,
  status: (res) => ({ fields: { action: res.spec.action } }),
  provides: { action: "string" },
  check(res, ctx) {
    if (res.spec.port !== undefined && res.spec.protocol !== "tcp" && res.spec.protocol !== "udp") {
      ctx.error(["port"], `a port needs protocol tcp or udp (protocol is ${res.spec.protocol})`);
    }
  },
  intents: (res) => [nftTableIntent("filter", res.owner)],
});
