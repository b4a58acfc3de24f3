// Generations and rollback on a real kernel: apply A, apply B, `rollback --to` A restores A's host state
// byte for byte (every nft table, rules, routes, addresses; tables compared in name order, see
// stateSnapshot) while a foreign table survives; generations are files that survive restarts; pruning
// keeps the newest.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { res, type ResourceDoc } from "../lib/config.js";
import { snapshot, stateSnapshot } from "../lib/netns.js";
import { RouterScenario, fullResources } from "../lib/scenario.js";

let s: RouterScenario;
beforeEach(() => {
  s = new RouterScenario();
});
afterEach(() => s.destroy());

interface GenerationList {
  current: number | null;
  generations: { generation: number; digest: string; reason?: string; appliedBy: { command: string; user: string; pid: number }; result: { ok: boolean; created: number; updated: number; deleted: number }; configPath?: string }[];
}
const list = () => JSON.parse(s.routerd(["rollback", "--list", "--json"]).stdout) as GenerationList;

/** B differs from A in every kind of host state: nft rules, fwmark rules, routes, addresses, link MTU. */
function configB(): ResourceDoc[] {
  return fullResources()
    .filter((r) => r.name !== "lab-net" && r.name !== "lan-ssh")
    .map((r) => {
      if (r.name === "web") return res("PortForward", "web", { ...r.spec, listen: { interface: "wan", protocol: "tcp", port: 8443 } });
      if (r.name === "wan2-address") return res("IPv4StaticAddress", "wan2-address", { interface: "wan2", address: "100.64.7.2/24" });
      if (r.name === "lan") return res("Interface", "lan", { ifname: "lan0", mtu: 1300 });
      if (r.name === "uplinks") {
        const spec = r.spec as { candidates: Record<string, unknown>[] };
        return res("EgressRoutePolicy", "uplinks", { ...r.spec, candidates: spec.candidates.map((c) => ({ ...c, table: Number(c.table) + 100, priority: Number(c.priority) + 100 })) });
      }
      return r;
    })
    .concat([res("IPv4Route", "extra", { destination: "10.77.0.0/16", gateway: "192.168.50.254", table: 100 })]);
}

describe("rollback", () => {
  it("restores A's host state byte for byte, leaves a foreign table alone, and records every step", () => {
    s.ns.exec("nft", ["-f", "-"], { input: "table inet foreign {\n chain c { type filter hook input priority 10; policy accept; tcp dport 9999 accept; }\n}\n" });
    const foreign = s.ns.exec("nft", ["list", "table", "inet", "foreign"]).stdout;

    const a = s.routerd(["apply", "--once", "--config", s.writeConfig(fullResources())]);
    const textA = readFileSync(s.configPath, "utf8");
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toContain("Recorded generation 1");
    const stateA = stateSnapshot(s.ns);

    const b = s.routerd(["apply", "--once", "--config", s.writeConfig(configB())]);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain("Recorded generation 2");
    const stateB = stateSnapshot(s.ns);
    expect(stateB).not.toBe(stateA);
    for (const changed of ["dport 8443", "100.64.7.2/24", "mtu 1300", "10.77.0.0/16", "lookup 201"]) expect(stateB).toContain(changed);

    // What rolling back would do, without doing it.
    const plan = s.routerd(["plan", "--generation", "1", "--json"]);
    expect(plan.code, plan.stderr).toBe(0);
    expect((JSON.parse(plan.stdout) as { summary: { create: number; delete: number } }).summary.create).toBeGreaterThan(0);
    const dry = s.routerd(["rollback", "--to", "1", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(stateSnapshot(s.ns)).toBe(stateB);

    const back = s.routerd(["rollback", "--to", "1"]);
    expect(back.code, back.stderr + back.stdout).toBe(0);
    expect(stateSnapshot(s.ns)).toBe(stateA);
    expect(s.ns.exec("nft", ["list", "table", "inet", "foreign"]).stdout).toBe(foreign);
    // The config file (what serve and the next boot read) holds A's text again.
    expect(readFileSync(s.configPath, "utf8")).toBe(textA);
    expect(back.stderr).toContain("now holds generation 1's config");

    // Every step is a generation with who applied it and the result; the rollback says what it was.
    const g = list();
    expect(g.current).toBe(3);
    expect(g.generations.map((x) => [x.generation, x.appliedBy.command, x.reason ?? "", x.result.ok])).toEqual([
      [1, "routerd apply", "", true],
      [2, "routerd apply", "", true],
      [3, "routerd rollback", "rollback to generation 1", true],
    ]);
    expect(g.generations[2]!.digest).toBe(g.generations[0]!.digest);
    expect(g.generations[1]!.digest).not.toBe(g.generations[0]!.digest);

    // Re-applying the current config changes nothing and adds no generation.
    const again = s.routerd(["reconcile", "--once", "--config", s.configPath]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("generation 3 already");
    expect(list().generations).toHaveLength(3);
  });

  it("keeps the newest generations when pruning, and they survive restarts as files", () => {
    const variants = [1, 2, 3, 4, 5].map((i) => [res("Interface", "lan", { ifname: "lan0" }), res("IPv4StaticAddress", "lan-address", { interface: "lan", address: `10.${i}.0.1/24` })]);
    for (const v of variants) expect(s.routerd(["apply", "--config", s.writeConfig(v), "--keep-generations", "3"]).code).toBe(0);
    const kept = list();
    expect(kept.generations.map((g) => g.generation)).toEqual([3, 4, 5]);
    // Each routerd run is a new process: what it lists was read back from <state-dir>/generations.
    expect(s.routerd(["rollback", "--to", "1"]).stderr).toMatch(/there is no generation 1[\s\S]*generations kept: 3, 4, 5/);
    const back = s.routerd(["rollback", "--to", "3", "--keep-generations", "3"]);
    expect(back.code, back.stderr).toBe(0);
    expect(s.ns.ip("-4 -br addr show lan0").stdout).toContain("10.3.0.1/24");
    expect(list().generations.map((g) => g.generation)).toEqual([4, 5, 6]);
  });

  it("refuses a generation that is missing or that this routerd no longer accepts, changing nothing", () => {
    expect(s.routerd(["apply", "--config", s.writeConfig([res("Interface", "lan", { ifname: "lan0" })])]).code).toBe(0);
    expect(s.routerd(["apply", "--config", s.writeConfig([res("Interface", "lan", { ifname: "lan0", mtu: 1400 })])]).code).toBe(0);
    const before = snapshot(s.ns);
    const missing = s.routerd(["rollback", "--to", "7"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("there is no generation 7");
    // A generation written by an older routerd whose fields this one rejects: every issue, no change.
    const dir = join(s.stateDir, "generations");
    const file = join(dir, readdirSync(dir).find((f) => f.startsWith("000001-"))!);
    const g = JSON.parse(readFileSync(file, "utf8")) as { config: string };
    writeFileSync(file, JSON.stringify({ ...g, config: g.config.replace('"ifname": "lan0"', '"ifname": "lan0", "speed": 10') }));
    const invalid = s.routerd(["rollback", "--to", "1"]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/generation 1:\d+:\d+: error: Interface\/lan spec.speed/);
    expect(snapshot(s.ns)).toBe(before);
  });
});
