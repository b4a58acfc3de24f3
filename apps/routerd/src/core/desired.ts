// Stage "effective view → intents → desired": which artifacts the config wants right now, with rendered
// content filled in for tables. Pure.
import {
  effectiveView,
  kindDefinition,
  makeConfigView,
  type EffectiveView,
  type Resource,
  type RouterConfig,
  type WhenState,
} from "@routerd/api";
import { defaultSelection, renderDesiredTables, type EgressSelection, type ServiceHole } from "@routerd/render";
import { mergeIntents, type ArtifactIntent, type DesiredArtifact } from "@routerd/resource";

export interface DesiredState {
  view: EffectiveView;
  /** Intents per active resource, in config order. */
  intents: Map<Resource, ArtifactIntent[]>;
  desired: DesiredArtifact[];
}

export interface DesiredInput {
  config: RouterConfig;
  when: WhenState;
  /** Active EgressRoutePolicy candidates (from health state); defaults to the highest weight. */
  selection?: EgressSelection;
  holes?: readonly ServiceHole[];
}

export function computeDesired(input: DesiredInput): DesiredState {
  const view = effectiveView(input.config, input.when);
  // Renderers and intents see only active resources: an inactive rule must not be rendered.
  const active = makeConfigView({ ...input.config, resources: view.active });
  const intents = new Map<Resource, ArtifactIntent[]>();
  for (const r of view.active) intents.set(r, kindDefinition(r.kind)!.intents(r, active));
  // Tables are shared by several resources; their content comes from the renderer, not the intents.
  const desired = mergeIntents([...intents.values()].flat(), (kind, a, b) => (kind === "nft.table" ? a : JSON.stringify(a) === JSON.stringify(b) ? a : undefined));
  const tables = renderDesiredTables(
    desired.filter((d) => d.kind === "nft.table").map((d) => d.name),
    { view: active, selection: input.selection ?? defaultSelection(active), holes: input.holes ?? [] },
  );
  for (const d of desired) {
    const t = tables.get(d.name);
    if (d.kind === "nft.table" && t) d.attributes = { family: t.family, table: t.table, contentDigest: t.digest, content: t.content };
  }
  return { view, intents, desired };
}

/** What the ledger keeps of a desired artifact: no bulky rendered text. */
export function recordableAttributes(d: DesiredArtifact): Record<string, unknown> {
  const { content: _c, ...rest } = d.attributes;
  return d.kind === "nft.table" ? rest : d.attributes;
}
