// Route table, fwmark and rule priority for EgressRoutePolicy candidates that do not name them. Pure and
// deterministic: a candidate keeps the numbers the ledger recorded for it; a new one starts at a slot derived
// from its policy and candidate names (not from its place in the config) and takes the first slot whose
// numbers nobody uses: not another candidate, not an explicit value, not a rule or table found on the host.
import { fwmarkValue } from "./formats.js";
import type { Resource } from "./kind.js";
import type { EgressRoutePolicySpec, NumberedCandidate } from "./kinds/egress-route-policy.js";

export interface EgressNumbers {
  table: number;
  mark: number;
  priority: number;
}

/** Numbers in use, per dimension. */
export interface TakenNumbers {
  tables: ReadonlySet<number>;
  marks: ReadonlySet<number>;
  priorities: ReadonlySet<number>;
}

/** One candidate's numbers, where they came from. */
export interface EgressAllocation extends EgressNumbers {
  policy: string;
  candidate: string;
  /** Which of the three were allocated (the rest are configured). */
  allocated: ("table" | "mark" | "priority")[];
  /** Taken over from the ledger (an earlier run), or new in this run. */
  recorded: boolean;
}

/** Slot i gives mark 0x101+i, table 100+i, priority 20000+i: inside routerd's mark range and the kernel's free tables. */
export const EGRESS_SLOTS = 150;
const slot = (i: number): EgressNumbers => ({ mark: 0x101 + i, table: 100 + i, priority: 20000 + i });

export const allocationKey = (policy: string, candidate: string) => `${policy}/${candidate}`;

/** FNV-1a: a stable start slot from the names. */
function startSlot(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return h % EGRESS_SLOTS;
}

export interface AllocationInput {
  policies: readonly Resource<EgressRoutePolicySpec>[];
  /** Numbers the ledger records per allocationKey (the candidate's fwmark rule). */
  recorded: ReadonlyMap<string, EgressNumbers>;
  /** Rules and tables on the host that are not routerd's; undefined when the host could not be read. */
  foreign?: TakenNumbers;
}

export interface AllocationResult {
  /** Per allocationKey, for every candidate missing a number. */
  numbers: Map<string, EgressAllocation>;
  /** Candidates that need a new number while the host's rules are unknown: their policy waits. */
  waiting: Map<string, string>;
}

export function allocateEgressNumbers(input: AllocationInput): AllocationResult {
  const tables = new Set(input.foreign?.tables ?? []);
  const marks = new Set(input.foreign?.marks ?? []);
  const priorities = new Set(input.foreign?.priorities ?? []);
  const open: { key: string; policy: string; candidate: NumberedCandidate | EgressRoutePolicySpec["candidates"][number] }[] = [];
  for (const p of input.policies) {
    for (const c of p.spec.candidates) {
      if (c.table !== undefined) tables.add(c.table);
      if (c.mark !== undefined) marks.add(fwmarkValue(c.mark));
      if (c.priority !== undefined) priorities.add(c.priority);
      if (c.table === undefined || c.mark === undefined || c.priority === undefined) open.push({ key: allocationKey(p.metadata.name, c.name), policy: p.metadata.name, candidate: c });
    }
  }
  open.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const result: AllocationResult = { numbers: new Map(), waiting: new Map() };
  const missing = (c: (typeof open)[number]["candidate"]) => (["table", "mark", "priority"] as const).filter((f) => c[f] === undefined);
  const free = (n: EgressNumbers, fields: readonly ("table" | "mark" | "priority")[]) =>
    fields.every((f) => !(f === "table" ? tables.has(n.table) : f === "mark" ? marks.has(n.mark) : priorities.has(n.priority)));
  const take = (o: (typeof open)[number], n: EgressNumbers, recorded: boolean) => {
    const fields = missing(o.candidate);
    const numbers = { table: o.candidate.table ?? n.table, mark: o.candidate.mark !== undefined ? fwmarkValue(o.candidate.mark) : n.mark, priority: o.candidate.priority ?? n.priority };
    for (const f of fields) (f === "table" ? tables.add(n.table) : f === "mark" ? marks.add(n.mark) : priorities.add(n.priority));
    result.numbers.set(o.key, { policy: o.policy, candidate: o.candidate.name, ...numbers, allocated: fields, recorded });
  };
  // What the ledger recorded first, so a new candidate never takes an earlier one's numbers.
  const fresh: typeof open = [];
  for (const o of open) {
    const r = input.recorded.get(o.key);
    if (r && free(r, missing(o.candidate))) take(o, r, true);
    else fresh.push(o);
  }
  for (const o of fresh) {
    if (!input.foreign) {
      result.waiting.set(o.key, "the host's rules and route tables could not be read, so no free numbers can be chosen");
      continue;
    }
    const fields = missing(o.candidate);
    const start = startSlot(o.key);
    let found: EgressNumbers | undefined;
    for (let k = 0; k < EGRESS_SLOTS && !found; k++) {
      const n = slot((start + k) % EGRESS_SLOTS);
      if (free(n, fields)) found = n;
    }
    if (found) take(o, found, false);
    else result.waiting.set(o.key, `no free slot among routerd's ${EGRESS_SLOTS} (marks 0x101-0x196, tables 100-249, priorities 20000-20149)`);
  }
  return result;
}

/** The policy with its candidates' numbers filled in (the same object when nothing was missing). */
export function withEgressNumbers(r: Resource<EgressRoutePolicySpec>, numbers: ReadonlyMap<string, EgressNumbers>): Resource<EgressRoutePolicySpec> {
  if (r.spec.candidates.every((c) => c.table !== undefined && c.mark !== undefined && c.priority !== undefined)) return r;
  const candidates = r.spec.candidates.map((c) => {
    const n = numbers.get(allocationKey(r.metadata.name, c.name));
    return n ? { ...c, table: n.table, mark: n.mark, priority: n.priority } : c;
  });
  return { ...r, spec: { ...r.spec, candidates } };
}

/** Does any candidate of the config need a number allocated? Configs without one pay for nothing. */
export function needsEgressNumbers(resources: readonly Resource[]): boolean {
  return resources.some((r) => r.kind === "EgressRoutePolicy" && (r.spec as EgressRoutePolicySpec).candidates.some((c) => c.table === undefined || c.mark === undefined || c.priority === undefined));
}
