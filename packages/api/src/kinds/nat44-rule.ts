import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { fromSource } from "../status-source.js";
import { nftTableIntent } from "../tables.js";

const portMapping = t.object({
  type: t.withDefault(t.enum("auto", "preserve", "range"), "auto"),
  start: t.optional(formats.port()),
  end: t.optional(formats.port()),
});

export const nat44RuleSpec = t.object(
  {
    type: t.optional(t.enum("masquerade", "snat").describe("default masquerade (or translation.type)")),
    egressInterface: t.optional(t.interfaceRef().describe("translate traffic leaving this interface (or egressPolicyRef)")),
    egressPolicyRef: t.optional(t.ref("EgressRoutePolicy").describe("translate traffic leaving any uplink of this EgressRoutePolicy")),
    sourceRanges: t.withDefault(t.array(formats.ipv4Cidr(), { unique: true }).describe("only these sources (empty: any)"), []),
    sourceSet: t.optional(t.ref("IPAddressSet").describe("only sources in this IPAddressSet")),
    destinationCIDRs: t.withDefault(t.array(formats.ipv4Cidr(), { unique: true }).describe("only traffic to these (empty: any)"), []),
    destinationSetRefs: t.withDefault(t.array(t.ref("IPAddressSet"), { unique: true }).describe("only traffic to these IPAddressSets"), []),
    snatAddress: t.optional(formats.ipv4().describe("source address for type snat")),
    snatAddressFrom: t.optional(fromSource({ format: "ipv4", into: "snatAddress" }).describe("the SNAT address from status, e.g. {resource: DHCPv4Client/wan, field: currentAddress}")),
    translation: t.optional(
      t.object({
        type: t.enum("interfaceAddress", "address", "pool"),
        address: t.optional(formats.ipv4()),
        addresses: t.optional(t.array(formats.ipv4(), { minItems: 1, unique: true })),
        portMapping: t.optional(portMapping),
      }).describe("the original's form: interfaceAddress (masquerade), address (snat to one), pool (spread over several, per source)"),
    ),
    excludeDestinationCIDRs: t.withDefault(t.array(formats.ipv4Cidr(), { unique: true }).describe("never translate traffic to these"), []),
    excludeDestinationSet: t.optional(t.ref("IPAddressSet")),
    excludeDestinationSetRefs: t.withDefault(t.array(t.ref("IPAddressSet"), { unique: true }), []),
  },
  { aliases: { sourceCIDRs: "sourceRanges", outboundInterface: "egressInterface" } },
);

/** What the rule does to a packet's source, from type/snatAddress or the original's translation. */
export type Nat44Action = { kind: "masquerade"; ports?: string } | { kind: "snat"; addresses: string[]; ports?: string };

export function natAction(spec: NAT44RuleSpec): Nat44Action {
  const t = spec.translation;
  const pm = t?.portMapping;
  const ports = pm?.type === "range" && pm.start !== undefined && pm.end !== undefined ? `${pm.start}-${pm.end}` : undefined;
  const withPorts = ports ? { ports } : {};
  if (t?.type === "address") return { kind: "snat", addresses: [t.address ?? spec.snatAddress!], ...withPorts };
  if (t?.type === "pool") return { kind: "snat", addresses: t.addresses!, ...withPorts };
  if (t?.type === "interfaceAddress" || (spec.type ?? "masquerade") === "masquerade") return { kind: "masquerade", ...withPorts };
  return { kind: "snat", addresses: [spec.snatAddress!], ...withPorts };
}

export type NAT44RuleSpec = Infer<typeof nat44RuleSpec>;

export const nat44RuleKind = defineKind<NAT44RuleSpec>({
  apiVersion: API_GROUPS.net,
  kind: "NAT44Rule",
  description: "Source NAT (masquerade or a fixed SNAT address) for traffic leaving an interface.",
  class: "nat",
  contract: { type: "ArtifactKinds", artifactKinds: ["nft.table"] },
  supportsWhen: true,
  spec: nat44RuleSpec,
  status: (res, ctx) => {
    const action = natAction(res.spec);
    return { fields: { egressInterface: res.spec.egressInterface && ctx.ifname(res.spec.egressInterface), snatAddress: action.kind === "snat" ? action.addresses[0] : undefined, dryRun: false } };
  },
  provides: { egressInterface: "string", snatAddress: "string", dryRun: "bool" },
  check(res, ctx) {
    const s = res.spec;
    const snatGiven = s.snatAddress !== undefined || s.snatAddressFrom !== undefined;
    if (!s.egressInterface && !s.egressPolicyRef) ctx.error(["egressInterface"], "is required (or egressPolicyRef)");
    if (s.egressInterface && s.egressPolicyRef) ctx.error(["egressPolicyRef"], "egressInterface is set too", "keep one of them");
    const tr = s.translation;
    if (tr) {
      if (s.type !== undefined) ctx.error(["type"], "translation says what the rule does", "keep one of type and translation");
      if (tr.type === "address" && !tr.address && !snatGiven) ctx.error(["translation", "address"], "is required for translation type address (or snatAddress/snatAddressFrom)");
      if (tr.type === "pool" && !tr.addresses) ctx.error(["translation", "addresses"], "is required for translation type pool");
      if (tr.type !== "address" && tr.address) ctx.error(["translation", "address"], `only applies to translation type address`);
      if (tr.type !== "pool" && tr.addresses) ctx.error(["translation", "addresses"], `only applies to translation type pool`);
      if (tr.type === "interfaceAddress" && snatGiven) ctx.error(["snatAddress"], "interfaceAddress translates to the interface's address");
      const pm = tr.portMapping;
      if (pm?.type === "range" && (pm.start === undefined || pm.end === undefined || pm.start > pm.end)) ctx.error(["translation", "portMapping"], "type range needs start <= end");
      if (pm && pm.type !== "range" && (pm.start !== undefined || pm.end !== undefined)) ctx.error(["translation", "portMapping"], `type ${pm.type} takes no start or end`);
      return;
    }
    if (s.type === "snat" && !snatGiven) ctx.error(["snatAddress"], "is required when type is snat (or snatAddressFrom)");
    if ((s.type ?? "masquerade") === "masquerade" && snatGiven) {
      ctx.error([s.snatAddress !== undefined ? "snatAddress" : "snatAddressFrom"], "only applies to type snat", "remove it, or set type: snat");
    }
  },
  intents: (res) => [nftTableIntent("nat", res.owner)],
});
