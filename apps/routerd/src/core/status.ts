// The status view of a run: what every resource publishes (its provides fields) and what `*From` and
// `when` read. Built from the config, the daemons' and the host's facts, the last reconcile's phases and
// what routerd serve knows better (health states, the uplink it chose).
import { makeStatusView, withEgressNumbers, type AllocationResult, type EgressRoutePolicySpec, type Resource, type RouterConfig, type RuntimeView, type StatusView, type WhenState } from "@routerd/api";
import type { EgressSelection } from "@routerd/render";
import { parseOwnerKey, type ObjectStatus, type OwnerKey } from "@routerd/resource";

export interface StatusInputs {
  /** `Kind/name → phase` known better than the last reconcile (health states from routerd serve). */
  when?: WhenState;
  /** The candidate each EgressRoutePolicy uses now. */
  selection?: EgressSelection;
  /** More fields per `Kind/name` (serve's transition times, its cluster lease). */
  facts?: ReadonlyMap<string, Record<string, unknown>>;
  /** Allocated EgressRoutePolicy numbers, so the published candidates show them. */
  egress?: AllocationResult;
}

/** The lifecycle phase each resource had after the last reconcile, keyed `Kind/name`. */
export function storedPhases(statuses: ReadonlyMap<OwnerKey, ObjectStatus>): WhenState {
  const out = new Map<string, { phase: string }>();
  for (const s of statuses.values()) {
    const p = parseOwnerKey(s.owner);
    if (s.phase !== "Unknown") out.set(`${p.kind}/${p.name}`, { phase: s.phase });
  }
  return out;
}

export function statusViewFor(config: RouterConfig, runtime: RuntimeView, statuses: ReadonlyMap<OwnerKey, ObjectStatus>, inputs: StatusInputs): StatusView {
  let facts = inputs.facts;
  if (inputs.selection?.size) {
    const merged = new Map(facts ?? []);
    for (const [policy, candidate] of inputs.selection) {
      const id = `EgressRoutePolicy/${policy}`;
      merged.set(id, { ...merged.get(id), selectedCandidate: candidate });
    }
    facts = merged;
  }
  const egress = inputs.egress;
  const prepare = egress ? (r: Resource) => (r.kind === "EgressRoutePolicy" ? withEgressNumbers(r as Resource<EgressRoutePolicySpec>, egress.numbers) : r) : undefined;
  return makeStatusView({ config, runtime, stored: storedPhases(statuses), ...(inputs.when ? { phases: inputs.when } : {}), ...(facts ? { facts } : {}), ...(prepare ? { prepare } : {}) });
}

/** A resource's published status as a plain JSON object: `phase` and its provided fields that have a value. */
export function publishedStatus(view: StatusView, id: string): Record<string, unknown> {
  const p = view.published(id);
  const out: Record<string, unknown> = {};
  if (p.phase !== undefined) out.phase = p.phase;
  for (const [k, v] of Object.entries(p.fields)) if (v !== undefined) out[k] = v;
  return out;
}
