// The status BGPRouter, BGPPeer and BFD publish for `*From` and `when.state`: what the router's routerd-bgp
// reports (runtime.bgp), read by routerd before planning. Pure: config and runtime facts in.
import type { ConfigView, PublishedStatus, Resource } from "../kind.js";

const BGP_FIELDS = ["peers", "prefixes", "establishedPeers", "acceptedPrefixes", "observedAt"] as const;
const PEER_FIELDS = ["address", "state", "acceptedPrefixes", "observedAt"] as const;

function pick(from: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => from[f] !== undefined).map((f) => [f, from[f]]));
}

/** The daemon resource `key` of `router`'s routerd-bgp, or why it is not known. */
function daemonResource(ctx: ConfigView, router: string, key: string): { phase: string; details: Record<string, unknown> } | { unknown: string } | undefined {
  const fact = ctx.runtime.bgp(router);
  if (fact.state === "unknown") return { unknown: `routerd-bgp@${router} status unknown (${fact.reason})` };
  if (fact.state === "absent") return undefined;
  return fact.value.resources[key];
}

export function bgpRouterStatus(res: Resource, ctx: ConfigView): PublishedStatus {
  const fact = ctx.runtime.bgp(res.metadata.name);
  if (fact.state === "unknown") return { fields: {}, unknown: `routerd-bgp@${res.metadata.name} status unknown (${fact.reason})` };
  if (fact.state === "absent") return { fields: {} };
  return { fields: pick(fact.value.details, BGP_FIELDS) };
}

export function bgpPeerStatus(res: Resource<{ routerRef: string }>, ctx: ConfigView): PublishedStatus {
  const r = daemonResource(ctx, res.spec.routerRef, res.metadata.name);
  if (r === undefined) return { fields: {} };
  if ("unknown" in r) return { fields: {}, unknown: r.unknown };
  return { phase: r.phase, fields: pick(r.details, PEER_FIELDS) };
}

/** A BFD's peer comes from its config; its phase (Up, Down, ...) from the routerd-bgp running it. */
export function bfdStatus(res: Resource<{ peer: string }>, ctx: ConfigView, router: string | undefined): PublishedStatus {
  const fields = { peer: res.spec.peer };
  const r = router !== undefined ? daemonResource(ctx, router, `BFD/${res.metadata.name}`) : undefined;
  if (r === undefined) return { fields };
  if ("unknown" in r) return { fields, unknown: r.unknown };
  return { phase: r.phase, fields };
}
