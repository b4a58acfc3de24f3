// EgressRoutePolicy number allocation: deterministic, stable under reordering and restarts (the ledger),
// inside routerd's ranges, never colliding with another policy, explicit values or the host's own rules.
import { describe, expect, it } from "vitest";
import { allocateEgressNumbers, allocationKey, withEgressNumbers, type EgressNumbers, type TakenNumbers } from "./egress-numbers.js";
import type { Resource } from "./kind.js";
import type { EgressRoutePolicySpec } from "./kinds/egress-route-policy.js";
import { loadConfig } from "./load.js";

function policies(yamlCandidates: Record<string, string[]>): Resource<EgressRoutePolicySpec>[] {
  const lines = ["apiVersion: routerd.net/v1alpha1", "kind: Router", "metadata: { name: t }", "spec:", "  resources:"];
  for (const i of ["wan1", "wan2", "wan3"]) lines.push(`    - { apiVersion: net.routerd.net/v1alpha1, kind: Interface, metadata: { name: ${i} }, spec: {} }`);
  for (const [name, cands] of Object.entries(yamlCandidates)) {
    lines.push(`    - apiVersion: net.routerd.net/v1alpha1`, `      kind: EgressRoutePolicy`, `      metadata: { name: ${name} }`, `      spec:`, `        candidates:`);
    for (const c of cands) lines.push(`          - ${c}`);
  }
  const r = loadConfig(lines.join("\n") + "\n", "t.yaml");
  if (!r.config) throw new Error(r.issues.map((i) => `${i.resource} ${i.field}: ${i.message}`).join("\n"));
  return r.config.resources.filter((x): x is Resource<EgressRoutePolicySpec> => x.kind === "EgressRoutePolicy");
}

const NONE: TakenNumbers = { tables: new Set(), marks: new Set(), priorities: new Set() };
const numbersOf = (r: ReturnType<typeof allocateEgressNumbers>) => Object.fromEntries([...r.numbers].map(([k, v]) => [k, { table: v.table, mark: v.mark, priority: v.priority }]));

const TWO = {
  internet: ["{ name: isp1, interface: wan1, gateway: 192.0.2.1 }", "{ name: isp2, interface: wan2, gateway: 198.51.100.1 }"],
  guests: ["{ name: isp3, interface: wan3, gateway: 203.0.113.1 }", "{ name: isp1, interface: wan1, gateway: 192.0.2.1 }"],
};

describe("EgressRoutePolicy numbers", () => {
  it("gives two policies distinct numbers inside routerd's ranges", () => {
    const r = allocateEgressNumbers({ policies: policies(TWO), recorded: new Map(), foreign: NONE });
    const all = [...r.numbers.values()];
    expect(all).toHaveLength(4);
    for (const dim of ["table", "mark", "priority"] as const) expect(new Set(all.map((a) => a[dim])).size).toBe(4);
    for (const a of all) {
      expect(a.mark).toBeGreaterThan(0x100);
      expect(a.mark).toBeLessThanOrEqual(0x1ff);
      expect(a.table).toBeGreaterThanOrEqual(1);
      expect(a.table).toBeLessThanOrEqual(252);
      expect(a.priority).toBeLessThan(32766);
      expect(a.allocated).toEqual(["table", "mark", "priority"]);
    }
  });

  it("does not depend on the order of policies or candidates in the config", () => {
    const a = allocateEgressNumbers({ policies: policies(TWO), recorded: new Map(), foreign: NONE });
    const reordered = { guests: [...TWO.guests].reverse(), internet: [...TWO.internet].reverse() };
    const b = allocateEgressNumbers({ policies: policies(reordered), recorded: new Map(), foreign: NONE });
    expect(numbersOf(b)).toEqual(numbersOf(a));
  });

  it("keeps what the ledger recorded, even when a new candidate would now hash to the same slot", () => {
    const first = allocateEgressNumbers({ policies: policies(TWO), recorded: new Map(), foreign: NONE });
    const recorded = new Map<string, EgressNumbers>([...first.numbers].map(([k, v]) => [k, { table: v.table, mark: v.mark, priority: v.priority }]));
    // Restarted with one more candidate: the earlier four keep their numbers; the new one gets free ones.
    const more = { ...TWO, internet: [...TWO.internet, "{ name: isp0, interface: wan3, gateway: 203.0.113.9 }"] };
    const second = allocateEgressNumbers({ policies: policies(more), recorded, foreign: NONE });
    for (const [k, v] of first.numbers) expect(second.numbers.get(k)).toMatchObject({ table: v.table, mark: v.mark, priority: v.priority, recorded: true });
    const fresh = second.numbers.get(allocationKey("internet", "isp0"))!;
    expect(fresh.recorded).toBe(false);
    for (const v of first.numbers.values()) expect([fresh.table === v.table, fresh.mark === v.mark, fresh.priority === v.priority]).toEqual([false, false, false]);
  });

  it("avoids explicit values and what the host uses, and allocates only the missing numbers", () => {
    const explicit = {
      p: ["{ name: a, interface: wan1, gateway: 192.0.2.1, mark: 0x150 }", "{ name: b, interface: wan2, gateway: 192.0.2.2, table: 100, mark: 0x101, priority: 20000 }"],
    };
    const ps = policies(explicit);
    const free = allocateEgressNumbers({ policies: ps, recorded: new Map(), foreign: NONE }).numbers.get("p/a")!;
    // Whatever slot a would take, block it on the host and see it move.
    const foreign: TakenNumbers = { tables: new Set([free.table]), marks: new Set(), priorities: new Set([free.priority + 1]) };
    const r = allocateEgressNumbers({ policies: ps, recorded: new Map(), foreign });
    const a = r.numbers.get("p/a")!;
    expect(a.mark).toBe(0x150);
    expect(a.allocated).toEqual(["table", "priority"]);
    expect(a.table).not.toBe(free.table);
    expect([100, free.table]).not.toContain(a.table);
    expect(a.priority).not.toBe(20000);
    expect(r.numbers.has("p/b")).toBe(false); // fully configured: nothing to allocate
    const numbered = withEgressNumbers(ps[0]!, r.numbers);
    expect(numbered.spec.candidates.map((c) => [c.table, c.mark, c.priority])).toEqual([[a.table, 0x150, a.priority], [100, 0x101, 20000]]);
    expect(ps[0]!.spec.candidates[0]!.table).toBeUndefined(); // the config itself is untouched
  });

  it("allocates nothing new while the host's rules are unknown, but keeps recorded numbers", () => {
    const recorded = new Map<string, EgressNumbers>([["internet/isp1", { table: 120, mark: 0x120, priority: 20020 }]]);
    const r = allocateEgressNumbers({ policies: policies(TWO), recorded });
    expect(r.numbers.get("internet/isp1")).toMatchObject({ table: 120, mark: 0x120, priority: 20020, recorded: true });
    expect([...r.waiting.keys()].sort()).toEqual(["guests/isp1", "guests/isp3", "internet/isp2"]);
  });

  it("validates without numbers, and refuses explicit duplicates as before", () => {
    expect(() => policies({ p: ["{ name: a, interface: wan1, gateway: 192.0.2.1 }"] })).not.toThrow();
    expect(() => policies({ p: ["{ name: a, interface: wan1, gateway: 192.0.2.1, mark: 0x150 }", "{ name: b, interface: wan2, gateway: 192.0.2.2, mark: 0x150 }"] })).toThrow(/same mark as candidates\[0\]/);
  });
});
