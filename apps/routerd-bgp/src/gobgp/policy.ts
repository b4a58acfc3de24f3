// BGPRouter/BGPPeer policies → GoBGP defined sets and policies (pure). GoBGP 3.10 has per-neighbor
// policies only for route-server clients, so each neighbor's policy is a global one whose statements all
// match that neighbor (a neighbor set: the source of an imported path, the target of an exported one).
// Names are content-addressed (rd-<dir>-<peer>-<digest>), so a changed policy is a new policy: it is
// added, the global assignment switched over, and the old one deleted; nothing is edited in place.
import { createHash } from "node:crypto";
import type { BgpCommunities, BgpExportPolicy, BgpImportPolicy } from "@routerd/api";
import {
  CommunityAction_Type,
  DefinedType,
  MatchSet_Type,
  RouteAction,
  type Actions,
  type Conditions,
  type DefinedSet,
  type Policy,
  type Statement,
} from "@routerd/gobgp-api/gen/gobgp";
import { FAMILY_IPV4, FAMILY_IPV6 } from "./codec.js";

/** What one direction of one BGPPeer resolves to (the peer's fields, else the router's). */
export interface DirectionPolicy {
  import?: BgpImportPolicy;
  export?: BgpExportPolicy;
  communities?: BgpCommunities;
}

export interface RenderedPolicy {
  policy: Policy;
  sets: DefinedSet[];
}

const digest = (v: unknown) => createHash("sha256").update(JSON.stringify(v)).digest("hex").slice(0, 10);

const prefixSet = (name: string, prefixes: string[], min?: number, max?: number): DefinedSet => ({
  definedType: DefinedType.PREFIX,
  name,
  list: [],
  prefixes: prefixes.map((p) => {
    const len = Number(p.split("/")[1]);
    const hostBits = p.includes(":") ? 128 : 32;
    // "Inside the prefix": the prefix itself or anything longer, narrowed by the length bounds.
    return { ipPrefix: p, maskLengthMin: Math.max(len, min ?? len), maskLengthMax: Math.min(hostBits, max ?? hostBits) };
  }),
});

const communitySet = (name: string, communities: string[]): DefinedSet => ({
  definedType: DefinedType.COMMUNITY,
  name,
  // GoBGP matches community sets as regular expressions: anchor each value.
  list: communities.map((c) => (/^\d+:\d+$/.test(c) ? `^${c}$` : c)),
  prefixes: [],
});

const neighborSet = (name: string, neighbor: string): DefinedSet => ({
  definedType: DefinedType.NEIGHBOR,
  name,
  list: [`${neighbor}/${neighbor.includes(":") ? 128 : 32}`],
  prefixes: [],
});

/** Statements of one neighbor's policy: every one is conditioned on the neighbor. */
class Statements {
  readonly list: Statement[] = [];
  constructor(private readonly nbr: string) {}
  private conditions(extra: Partial<Conditions>): Conditions {
    return { rpkiResult: -1, routeType: 0, nextHopInList: [], afiSafiIn: [], neighborSet: { type: MatchSet_Type.ANY, name: this.nbr }, ...extra };
  }
  reject(name: string, extra: Partial<Conditions>): void {
    this.list.push({ name, conditions: this.conditions(extra), actions: { routeAction: RouteAction.REJECT } });
  }
  accept(name: string, actions: Actions): void {
    this.list.push({ name, conditions: this.conditions({}), actions });
  }
}

/**
 * Rejects paths outside `prefixes`. GoBGP keeps one family per prefix set, so there is a set and a
 * statement per family; a family with no allowed prefix is rejected whole.
 */
function onlyInside(name: string, prefixes: string[], sets: DefinedSet[], statements: Statements, min?: number, max?: number): void {
  for (const [suffix, family, v6] of [["4", FAMILY_IPV4, false], ["6", FAMILY_IPV6, true]] as const) {
    const list = prefixes.filter((p) => p.includes(":") === v6);
    if (list.length === 0) {
      statements.reject(`${name}${suffix}`, { afiSafiIn: [family] });
      continue;
    }
    sets.push(prefixSet(`${name}${suffix}`, list, min, max));
    statements.reject(`${name}${suffix}`, { afiSafiIn: [family], prefixSet: { type: MatchSet_Type.INVERT, name: `${name}${suffix}` } });
  }
}

/**
 * Import: forbidden communities, allowed prefixes/lengths, required and accepted communities, then actions.
 * Rendered per neighbor: `peer-address` rewrites the next hop to that neighbor's address.
 */
export function renderImport(peer: string, neighbor: string, p: DirectionPolicy): RenderedPolicy | undefined {
  const imp = p.import ?? {};
  const set = p.communities?.set?.in ?? [];
  const accept = p.communities?.accept ?? [];
  const anything =
    imp.allowedPrefixes?.length || imp.allowedPrefixLengthMin !== undefined || imp.allowedPrefixLengthMax !== undefined || imp.requiredCommunities?.length ||
    imp.forbiddenCommunities?.length || imp.localPreference !== undefined || imp.nextHopRewrite === "peer-address" || set.length || accept.length;
  if (!anything) return undefined;
  const base = `rd-in-${peer}-${digest({ neighbor, imp, set, accept })}`;
  const sets: DefinedSet[] = [neighborSet(`${base}-nbr`, neighbor)];
  const statements = new Statements(`${base}-nbr`);
  if (imp.forbiddenCommunities?.length) {
    sets.push(communitySet(`${base}-forbidden`, imp.forbiddenCommunities));
    statements.reject(`${base}-forbidden`, { communitySet: { type: MatchSet_Type.ANY, name: `${base}-forbidden` } });
  }
  if (imp.allowedPrefixes?.length || imp.allowedPrefixLengthMin !== undefined || imp.allowedPrefixLengthMax !== undefined) {
    const prefixes = imp.allowedPrefixes?.length ? imp.allowedPrefixes : ["0.0.0.0/0", "::/0"];
    onlyInside(`${base}-prefixes`, prefixes, sets, statements, imp.allowedPrefixLengthMin, imp.allowedPrefixLengthMax);
  }
  (imp.requiredCommunities ?? []).forEach((c, i) => {
    sets.push(communitySet(`${base}-required${i}`, [c]));
    statements.reject(`${base}-required${i}`, { communitySet: { type: MatchSet_Type.INVERT, name: `${base}-required${i}` } });
  });
  if (accept.length) {
    sets.push(communitySet(`${base}-accept`, accept));
    statements.reject(`${base}-accept`, { communitySet: { type: MatchSet_Type.INVERT, name: `${base}-accept` } });
  }
  const actions: Actions = { routeAction: RouteAction.ACCEPT };
  if (imp.localPreference !== undefined) actions.localPref = { value: imp.localPreference };
  if (set.length) actions.community = { type: CommunityAction_Type.ADD, communities: set };
  if (imp.nextHopRewrite === "peer-address") actions.nexthop = { address: neighbor, self: false, unchanged: false };
  statements.accept(`${base}-accept-all`, actions);
  return { policy: { name: base, statements: statements.list }, sets };
}

/** Export: allowed prefixes only (when given), communities added on the way out. */
export function renderExport(peer: string, neighbor: string, p: DirectionPolicy): RenderedPolicy | undefined {
  const allowed = p.export?.allowedPrefixes ?? [];
  const set = p.communities?.set?.out ?? [];
  if (!allowed.length && !set.length) return undefined;
  const base = `rd-out-${peer}-${digest({ neighbor, allowed, set })}`;
  const sets: DefinedSet[] = [neighborSet(`${base}-nbr`, neighbor)];
  const statements = new Statements(`${base}-nbr`);
  if (allowed.length) {
    onlyInside(`${base}-prefixes`, allowed, sets, statements);
  }
  const actions: Actions = { routeAction: RouteAction.ACCEPT };
  if (set.length) actions.community = { type: CommunityAction_Type.ADD, communities: set };
  statements.accept(`${base}-accept-all`, actions);
  return { policy: { name: base, statements: statements.list }, sets };
}
