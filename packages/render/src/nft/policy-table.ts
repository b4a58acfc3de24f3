// ip routerd_policy: marks new connections of an EgressRoutePolicy with the active candidate's fwmark and
// restores the connection's mark on every packet, so switching uplinks moves only new connections.
import { FWMARK_MAX, FWMARK_MIN } from "@routerd/resource";
import { NFT_TABLES, candidateDevice, fwmarkValue, liveCandidates, type ConfigView, type EgressRoutePolicySpec, type NumberedCandidate } from "@routerd/api";
import { addressAlternatives, exclusion, join, setDefs } from "./matches.js";
import { ifnameMatch, renderTable } from "./text.js";

const hex = (n: number) => `0x${n.toString(16)}`;

/** Active candidate name per EgressRoutePolicy name. */
export type EgressSelection = ReadonlyMap<string, string>;

export function renderPolicyTable(view: ConfigView, selection: EgressSelection): { content: string; digest: string } {
  const policies = view.all<EgressRoutePolicySpec>("EgressRoutePolicy");
  const range = `${hex(FWMARK_MIN)}-${hex(FWMARK_MAX)}`;
  const rules: string[] = [];
  for (const p of policies) {
    // The view holds policies with their numbers filled in (configured or allocated).
    const live = liveCandidates(p.spec) as NumberedCandidate[];
    const active = live.find((c) => c.name === selection.get(p.metadata.name)) ?? live[0];
    if (!active || live.some((c) => c.mark === undefined)) continue;
    rules.push(`# EgressRoutePolicy/${p.metadata.name}: active candidate ${active.name}`);
    // Connections arriving on an uplink leave through it too (replies of port forwards, say).
    for (const c of live) {
      rules.push(join(ifnameMatch("iifname", [candidateDevice(c, view)]), "ct state new", `ct mark set ${hex(fwmarkValue(c.mark))}`));
    }
    const dsts = [...(p.spec.destinationSet ? [p.spec.destinationSet] : []), ...p.spec.destinationSetRefs];
    const excluded = exclusion("daddr", p.spec.excludeDestinationCIDRs, p.spec.excludeDestinationSetRefs);
    for (const src of addressAlternatives("saddr", p.spec.sourceCIDRs, p.spec.sourceSet)) {
      for (const dst of addressAlternatives("daddr", p.spec.destinationCIDRs, dsts)) {
        rules.push(join(src, dst, excluded, "ct state new", `ct mark set ${hex(fwmarkValue(active.mark))}`));
      }
    }
  }
  // Every packet of a marked connection carries its uplink's mark, replies arriving on the uplink too: with
  // src_valid_mark (set by EgressRoutePolicy) reverse-path filtering then checks them against that uplink's
  // table. Traffic towards the LAN is still routed by the main table thanks to the policy's
  // suppress_prefixlength rule, so a port forward's packets do not bounce back out of the uplink.
  if (policies.length) rules.push(`ct mark ${range} meta mark set ct mark`);
  const sets = setDefs(view, policies.flatMap((p) => [p.spec.sourceSet, p.spec.destinationSet, p.spec.destinationSetRefs, p.spec.excludeDestinationSetRefs]));
  return renderTable(NFT_TABLES.policy.family, NFT_TABLES.policy.table, sets, [
    { name: "prerouting", hook: "type filter hook prerouting priority mangle; policy accept;", rules },
  ]);
}

/** Without health information: the highest-weight candidate (first on ties). */
export function defaultSelection(view: ConfigView): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of view.all<EgressRoutePolicySpec>("EgressRoutePolicy")) {
    const best = [...liveCandidates(p.spec)].sort((a, b) => b.weight - a.weight)[0];
    if (best) out.set(p.metadata.name, best.name);
  }
  return out;
}
