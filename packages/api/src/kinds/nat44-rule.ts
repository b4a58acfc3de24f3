import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { nftTableIntent } from "../tables.js";

export const nat44RuleSpec = t.object({
  type: t.withDefault(t.enum("masquerade", "snat"), "masquerade"),
  egressInterface: t.interfaceRef().describe("translate traffic leaving this Interface"),
  sourceRanges: t.withDefault(t.array(formats.ipv4Cidr(), { unique: true }).describe("only these sources (empty: any)"), []),
  sourceSet: t.optional(t.ref("IPAddressSet").describe("only sources in this IPAddressSet")),
  snatAddress: t.optional(formats.ipv4().describe("source address for type snat")),
  excludeDestinationCIDRs: t.withDefault(t.array(formats.ipv4Cidr(), { unique: true }).describe("never translate traffic to these"), []),
  excludeDestinationSet: t.optional(t.ref("IPAddressSet")),
});

export type NAT44RuleSpec = Infer<typeof nat44RuleSpec>;

export const nat44RuleKind = defineKind<NAT44RuleSpec>({
  apiVersion: API_GROUPS.net,
  kind: "NAT44Rule",
  description: "Source NAT (masquerade or a fixed SNAT address) for traffic leaving an interface.",
  class: "nat",
  contract: { type: "ArtifactKinds", artifactKinds: ["nft.table"] },
  supportsWhen: true,
  spec: nat44RuleSpec,
  status: (res, ctx) => ({ fields: { egressInterface: ctx.ifname(res.spec.egressInterface), snatAddress: res.spec.snatAddress, dryRun: false } }),
  provides: { egressInterface: "string", snatAddress: "string", dryRun: "bool" },
  check(res, ctx) {
    if (res.spec.type === "snat" && !res.spec.snatAddress) ctx.error(["snatAddress"], "is required when type is snat");
    if (res.spec.type === "masquerade" && res.spec.snatAddress) {
      ctx.error(["snatAddress"], "only applies to type snat", "remove it, or set type: snat");
    }
  },
  intents: (res) => [nftTableIntent("nat", res.owner)],
});
