// Behaviour 1, 2 and 7 of the reconcile issue, on the real kernel in a namespace the test owns.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { snapshot } from "../lib/netns.js";
import { RouterScenario, changes, fullResources } from "../lib/scenario.js";

let s: RouterScenario;
beforeEach(() => {
  s = new RouterScenario();
});
afterEach(() => s.destroy());

describe("reconcile on a real kernel", () => {
  it("creates everything from an empty namespace, then changes nothing", () => {
    const first = s.reconcile(fullResources());
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);

    const nft = s.ns.exec("nft", ["list", "tables"]).stdout;
    expect(nft).toContain("table ip routerd_nat");
    expect(nft).toContain("table inet routerd_filter");
    expect(nft).toContain("table ip routerd_policy");
    expect(s.ns.ip("rule show").stdout).toMatch(/1101:\s+from all fwmark 0x101 lookup 101/);
    expect(s.ns.ip("route show table 101").stdout).toContain("default via 203.0.113.1 dev wan0");
    expect(s.ns.ip("route show table 100").stdout).toContain("10.20.0.0/16 via 192.168.50.254 dev lan0");
    expect(s.ns.ip("route show").stdout).toContain("blackhole 10.66.0.0/16 metric 10");
    expect(s.ns.ip("addr show lan0").stdout).toContain("inet 192.168.50.1/24");
    expect(s.ns.ip("link show lan0").stdout).toContain("mtu 1400");
    expect(s.ns.exec("sysctl", ["-n", "net.ipv4.ip_forward"]).stdout.trim()).toBe("1");
    const persisted = readFileSync(join(s.root, "etc/sysctl.d/90-routerd.conf"), "utf8");
    expect(persisted).toContain("# BEGIN routerd net.ipv4.conf.all.log_martians\nnet.ipv4.conf.all.log_martians = 1\n# END routerd");

    const ledger = JSON.parse(readFileSync(join(s.stateDir, "artifacts.json"), "utf8")) as { entries: { kind: string; name: string; state: string }[] };
    const ids = ledger.entries.map((e) => `${e.kind} ${e.name}`);
    expect(ids).toEqual(expect.arrayContaining(["nft.table ip/routerd_nat", "linux.ipv4.fwmarkRule priority=1101,mark=0x101,table=101", "linux.ipv4.address lan0/192.168.50.1/24"]));
    expect(ledger.entries.every((e) => e.state === "present")).toBe(true);

    const before = snapshot(s.ns);
    const second = s.reconcile(fullResources(), ["--json"]);
    expect(second.code).toBe(0);
    const summary = (JSON.parse(second.stdout) as { summary: Record<string, number> }).summary;
    expect(summary).toMatchObject({ create: 0, update: 0, delete: 0 });
    expect(snapshot(s.ns)).toBe(before);

    const plan = s.routerd(["plan", "--detailed-exitcode", "--config", s.configPath]);
    expect(plan.code).toBe(0);

    // ROUTERD_TRACE=1: every stage of the run on stderr, in order, with rising times; stdout unchanged.
    const traced = s.routerd(["reconcile", "--once", "--json", "--config", s.configPath], { ...process.env, ROUTERD_TRACE: "1" });
    expect(traced.code).toBe(0);
    expect((JSON.parse(traced.stdout) as { summary: Record<string, number> }).summary).toMatchObject({ create: 0, update: 0, delete: 0 });
    const stages = [...traced.stderr.matchAll(/^routerd trace:\s+(\d+) ms {2}(.+)$/gm)].map((m) => ({ ms: Number(m[1]), stage: m[2] }));
    expect(stages.map((x) => x.stage)).toEqual(expect.arrayContaining(["modules loaded", "desired state computed", "host observed", "planned", "ledger saved", "status saved", "report printed"]));
    expect(stages.map((x) => x.ms)).toEqual([...stages.map((x) => x.ms)].sort((a, b) => a - b));
  });

  it("removes exactly the artifacts of a removed resource; --dry-run lists them and touches nothing", () => {
    expect(s.reconcile(fullResources()).code).toBe(0);
    const reduced = fullResources().filter((r) => !["uplinks", "lan-address", "lab-net"].includes(r.name));
    const before = snapshot(s.ns);
    const ledgerBefore = readFileSync(join(s.stateDir, "artifacts.json"));

    const dry = s.routerd(["reconcile", "--once", "--dry-run", "--json", "--config", s.writeConfig(reduced)]);
    expect(dry.code).toBe(0);
    const planned = JSON.parse(dry.stdout) as Parameters<typeof changes>[0];
    expect(changes(planned, "delete")).toEqual(
      [
        "linux.ipv4.address lan0/192.168.50.1/24",
        "linux.ipv4.fwmarkRule priority=1100,mark=0x100,table=254",
        "linux.ipv4.fwmarkRule priority=1101,mark=0x101,table=101",
        "linux.ipv4.fwmarkRule priority=1102,mark=0x102,table=102",
        "linux.ipv4.route table=100,dst=10.20.0.0/16,metric=0",
        "linux.ipv4.route table=101,dst=0.0.0.0/0,metric=0",
        "linux.ipv4.route table=102,dst=0.0.0.0/0,metric=0",
        "linux.ipv4.routeTable 101",
        "linux.ipv4.routeTable 102",
        "nft.table ip/routerd_policy",
      ].sort(),
    );
    expect(snapshot(s.ns)).toBe(before);
    expect(readFileSync(join(s.stateDir, "artifacts.json")).equals(ledgerBefore)).toBe(true);

    const dryPlanCode = s.routerd(["plan", "--detailed-exitcode", "--config", s.configPath]).code;
    expect(dryPlanCode).toBe(2);

    expect(s.reconcile(reduced).code).toBe(0);
    expect(s.ns.exec("nft", ["list", "tables"]).stdout).not.toContain("routerd_policy");
    expect(s.ns.exec("nft", ["list", "tables"]).stdout).toContain("routerd_nat");
    expect(s.ns.ip("rule show").stdout).not.toContain("fwmark 0x101");
    expect(s.ns.ip("route show table 101").stdout).toBe("");
    expect(s.ns.ip("route show table 100").stdout).toBe("");
    expect(s.ns.ip("addr show lan0").stdout).not.toContain("192.168.50.1");
    // Everything still wanted is still there.
    expect(s.ns.ip("addr show wan0").stdout).toContain("203.0.113.2/24");
    expect(s.ns.ip("route show").stdout).toContain("default via 203.0.113.1");
    expect(s.routerd(["plan", "--detailed-exitcode", "--config", s.configPath]).code).toBe(0);
  });

  it("rejects invalid YAML and semantic errors with a located message, changing neither host nor ledger", () => {
    expect(s.reconcile(fullResources()).code).toBe(0);
    const before = snapshot(s.ns);
    const ledgerBefore = readFileSync(join(s.stateDir, "artifacts.json"));

    writeFileSync(s.configPath, "apiVersion: routerd.net/v1alpha1\nkind: Router\nmetadata: {name: x\nspec: [\n");
    const syntax = s.routerd(["reconcile", "--once", "--config", s.configPath]);
    expect(syntax.code).toBe(1);
    expect(syntax.stderr).toMatch(new RegExp(`${s.configPath.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:\\d+:\\d+: error: YAML`));

    const broken = fullResources().map((r) => (r.name === "masq" ? { ...r, spec: { ...r.spec, type: "snat" } } : r));
    const semantic = s.reconcile(broken);
    expect(semantic.code).toBe(1);
    expect(semantic.stderr).toMatch(/NAT44Rule\/masq spec\.snatAddress: is required when type is snat/);

    expect(snapshot(s.ns)).toBe(before);
    expect(readFileSync(join(s.stateDir, "artifacts.json")).equals(ledgerBefore)).toBe(true);
    expect(existsSync(join(s.stateDir, "backups"))).toBe(false);
  });
});
