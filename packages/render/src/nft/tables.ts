// Renders every routerd table the desired set contains. Pure: config view + state in, text out.
import { NFT_TABLES, type ConfigView, type NftTableRole } from "@routerd/api";
import { artifactNames } from "@routerd/resource";
import { renderFilterTable, type ServiceHole } from "./filter-table.js";
import type { IngressSelection } from "./ingress.js";
import { renderMssTable } from "./mss-table.js";
import { renderNatTable } from "./nat-table.js";
import { renderPolicyTable, type EgressSelection } from "./policy-table.js";

export interface TableRenderInput {
  view: ConfigView;
  selection: EgressSelection;
  holes: readonly ServiceHole[];
  /** IngressService backends health allows, by service; default: every backend. */
  ingress?: IngressSelection;
}

export interface RenderedTable {
  family: string;
  table: string;
  content: string;
  digest: string;
}

const RENDERERS: Record<NftTableRole, (input: TableRenderInput) => { content: string; digest: string }> = {
  nat: (i) => renderNatTable(i.view, i.ingress),
  filter: (i) => renderFilterTable(i.view, i.holes, i.ingress),
  policy: (i) => renderPolicyTable(i.view, i.selection),
  mss: (i) => renderMssTable(i.view),
};

/** Rendered content keyed by artifact name (`ip/routerd_nat`), for the tables in `wanted`. */
export function renderDesiredTables(wanted: Iterable<string>, input: TableRenderInput): Map<string, RenderedTable> {
  const want = new Set(wanted);
  const out = new Map<string, RenderedTable>();
  for (const [role, t] of Object.entries(NFT_TABLES) as [NftTableRole, (typeof NFT_TABLES)[NftTableRole]][]) {
    const name = artifactNames.nftTable(t.family, t.table);
    if (!want.has(name)) continue;
    out.set(name, { family: t.family, table: t.table, ...RENDERERS[role](input) });
  }
  return out;
}
