// Inputs of the EgressRoutePolicy number allocation (packages/api egress-numbers.ts) from the ledger and the
// host: what each candidate was given before, and which rules and tables others use. Only configs with a
// candidate missing a number pay for it.
import { allocateEgressNumbers, allocationKey, needsEgressNumbers, type AllocationResult, type EgressNumbers, type EgressRoutePolicySpec, type Resource, type RouterConfig } from "@routerd/api";
import { observeInventory, type HostContext, type InventoryPrefetch, type ObservationCache } from "@routerd/host";
import { parseOwnerKey, type Ledger } from "@routerd/resource";

/** The numbers the ledger records per candidate: its fwmark rule carries the candidate's name. */
export function recordedNumbers(ledger: Ledger): Map<string, EgressNumbers> {
  const out = new Map<string, EgressNumbers>();
  for (const e of ledger.values()) {
    if (e.kind !== "linux.ipv4.fwmarkRule" || typeof e.attributes.candidate !== "string") continue;
    const policy = e.owners.map(parseOwnerKey).find((o) => o.kind === "EgressRoutePolicy")?.name;
    if (!policy) continue;
    out.set(allocationKey(policy, e.attributes.candidate), { table: Number(e.attributes.table), mark: Number(e.attributes.mark), priority: Number(e.attributes.priority) });
  }
  return out;
}

export async function egressAllocation(config: RouterConfig, ledger: Ledger, host: HostContext, prefetch?: InventoryPrefetch, cache?: ObservationCache): Promise<AllocationResult | undefined> {
  if (!needsEgressNumbers(config.resources)) return undefined;
  const inventory = await observeInventory(host, ["linux.ipv4.fwmarkRule", "linux.ipv4.routeTable"], new Map(), prefetch, cache);
  const rules = inventory.get("linux.ipv4.fwmarkRule");
  const tables = inventory.get("linux.ipv4.routeTable");
  let foreign: { tables: Set<number>; marks: Set<number>; priorities: Set<number> } | undefined;
  if (rules?.status === "known" && tables?.status === "known") {
    foreign = { tables: new Set(), marks: new Set(), priorities: new Set() };
    for (const r of rules.items.values()) {
      if (ledger.get(r.kind, r.name)) continue;
      foreign.tables.add(Number(r.attributes.table));
      foreign.marks.add(Number(r.attributes.mark));
      foreign.priorities.add(Number(r.attributes.priority));
    }
    for (const t of tables.items.values()) if (!ledger.get(t.kind, t.name)) foreign.tables.add(Number(t.attributes.table));
  }
  const policies = config.resources.filter((r): r is Resource<EgressRoutePolicySpec> => r.kind === "EgressRoutePolicy");
  return allocateEgressNumbers({ policies, recorded: recordedNumbers(ledger), ...(foreign ? { foreign } : {}) });
}
