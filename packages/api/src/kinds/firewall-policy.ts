import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { nftTableIntent } from "../tables.js";

const verdict = () => t.enum("accept", "drop", "reject");

export const firewallPolicySpec = t.object({
  defaultInput: t.optional(verdict().describe("traffic to the router that no rule matched (set either default: no role matrix, unset ones are drop)")),
  defaultForward: t.optional(verdict().describe("traffic through the router that no rule matched")),
  logDeny: t.withDefault(t.bool().describe("log what the defaults drop or reject (rate limited)"), false),
  sameRoleAccept: t.withDefault(t.bool().describe("role matrix: traffic between two zones of the same role (trust, mgmt) is accepted"), false),
});

/**
 * Without explicit defaults the zones' roles decide, as in the original (after the rules, first match wins):
 * mgmt reaches everything, trust reaches the router and untrust (and other trust zones with sameRoleAccept),
 * untrust reaches nothing; the rest is dropped. A config with neither a FirewallPolicy nor zones has no
 * roles to go by: its table (for a PortForward or IngressService, say) filters nothing, as before.
 */
export function usesRoleMatrix(spec: FirewallPolicySpec | undefined, hasZones: boolean): boolean {
  return spec ? spec.defaultInput === undefined && spec.defaultForward === undefined : hasZones;
}

export type FirewallPolicySpec = Infer<typeof firewallPolicySpec>;

export const firewallPolicyKind = defineKind<FirewallPolicySpec>({
  apiVersion: API_GROUPS.firewall,
  kind: "FirewallPolicy",
  description: "Default verdicts of the routerd_filter table. At most one per router.",
  class: "firewall",
  contract: { type: "ArtifactKinds", artifactKinds: ["nft.table"] },
  supportsWhen: false,
  spec: firewallPolicySpec,
  provides: {},
  check(res, ctx) {
    const all = ctx.all("FirewallPolicy");
    if (all[0] !== res) ctx.error([], `only one FirewallPolicy is allowed (first is FirewallPolicy/${all[0]!.metadata.name})`);
    if (ctx.all("FirewallZone").length === 0 && res.spec.defaultInput !== "accept") {
      ctx.warn(["defaultInput"], "no FirewallZone exists: every interface falls under the default, including management access");
    }
  },
  intents: (res) => [nftTableIntent("filter", res.owner)],
});
