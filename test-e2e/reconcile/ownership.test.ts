// Behaviour 3, 4 and 5: foreign state is never touched, adoption, and failing observers.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { snapshot } from "../lib/netns.js";
import { RouterScenario, changes, fullResources } from "../lib/scenario.js";

let s: RouterScenario;
beforeEach(() => {
  s = new RouterScenario();
});
afterEach(() => s.destroy());

const ledgerText = () => (existsSync(join(s.stateDir, "artifacts.json")) ? readFileSync(join(s.stateDir, "artifacts.json"), "utf8") : "(none)");

describe("foreign state", () => {
  it("never touches what routerd did not create, even in its own namespace of names", () => {
    // Things that look like routerd's but are not in its ledger, and things that are plainly someone else's.
    s.ns.exec("nft", ["-f", "-"], {
      input: "table ip routerd_x {\n chain c { type filter hook input priority 0; policy accept; }\n}\ntable inet foreign {\n chain c { type filter hook forward priority 0; policy accept; }\n}\n",
    });
    s.ns.ip("link set lan0 up");
    s.ns.ip("addr add 10.99.0.1/24 dev lan0");
    s.ns.ip("route add 10.98.0.0/16 via 10.99.0.254 table 200");
    s.ns.ip("rule add priority 50 fwmark 0x50 table 200");
    s.ns.ip("rule add priority 150 fwmark 0x150 table 200");
    mkdirSync(join(s.root, "etc/sysctl.d"), { recursive: true });
    const sysctlFile = join(s.root, "etc/sysctl.d/90-routerd.conf");
    writeFileSync(sysctlFile, "# the operator's own line\nnet.core.somaxconn = 1024\n");
    writeFileSync(join(s.root, "etc/sysctl.d/10-other.conf"), "vm.swappiness = 10\n");

    const foreign = () => ({
      nft: ["ip routerd_x", "inet foreign"].map((t) => s.ns.exec("nft", ["list", "table", ...t.split(" ")]).stdout),
      rules: s.ns.ip("rule show").stdout.split("\n").filter((l) => /fwmark 0x(50|150) /.test(l)),
      route: s.ns.ip("route show table 200").stdout,
      addr: s.ns.ip("-4 addr show lan0").stdout.includes("10.99.0.1/24"),
      links: s.ns.ip("-br link").stdout.split("\n").map((l) => l.split(/\s+/)[0]).sort(),
      other: readFileSync(join(s.root, "etc/sysctl.d/10-other.conf"), "utf8"),
    });
    const before = foreign();

    expect(s.reconcile(fullResources()).code).toBe(0);
    const { plan } = s.planJson(fullResources());
    expect(plan.lookAlikes).toEqual(
      expect.arrayContaining([
        { kind: "nft.table", name: "ip/routerd_x" },
        { kind: "linux.ipv4.fwmarkRule", name: "priority=150,mark=0x150,table=200" },
      ]),
    );
    expect(readFileSync(sysctlFile, "utf8")).toMatch(/^# the operator's own line\nnet.core.somaxconn = 1024\n# BEGIN routerd/);

    // Tear down everything routerd owns: the config is empty and --allow-empty says that is intended.
    const empty = s.reconcile([], ["--allow-empty"]);
    expect(empty.code).toBe(0);
    expect(s.ns.exec("nft", ["list", "tables"]).stdout.trim().split("\n").sort()).toEqual(["table inet foreign", "table ip routerd_x"]);
    expect(s.ns.ip("rule show").stdout).not.toMatch(/fwmark 0x10[12] /);
    expect(foreign()).toEqual(before);
    // The block routerd wrote is gone, the operator's lines are not.
    expect(readFileSync(sysctlFile, "utf8")).toBe("# the operator's own line\nnet.core.somaxconn = 1024\n");
    // Links are never deleted; addresses routerd created are.
    expect(s.ns.ip("-4 addr show lan0").stdout).not.toContain("192.168.50.1");
    expect(JSON.parse(ledgerText()).entries).toEqual([]);
  });

  it("refuses to clean up everything when the config is empty without --allow-empty", () => {
    expect(s.reconcile(fullResources()).code).toBe(0);
    const before = snapshot(s.ns);
    const r = s.reconcile([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("cleanup refused");
    expect(snapshot(s.ns)).toBe(before);
  });
});

describe("adopt", () => {
  const small = () => [
    res("Interface", "lan", { ifname: "lan0" }),
    res("IPv4StaticAddress", "lan-address", { interface: "lan", address: "192.168.50.1/24" }),
    res("Sysctl", "forward", { key: "net.ipv4.ip_forward", value: 1 }),
  ];

  it("lists candidates with desired and observed, refuses drift, and records matches without changing the host", () => {
    s.ns.ip("link set lan0 up");
    s.ns.ip("addr add 192.168.50.1/24 dev lan0");
    s.ns.exec("sysctl", ["-qw", "net.ipv4.ip_forward=0"]);
    s.writeConfig(small());

    const list = s.routerd(["adopt", "--candidates", "--json", "--config", s.configPath]);
    expect(list.code).toBe(0);
    const candidates = (JSON.parse(list.stdout) as { adoptionCandidates: { kind: string; name: string; reason: string; desired: Record<string, unknown>; observed: Record<string, unknown> }[] }).adoptionCandidates;
    const byName = new Map(candidates.map((c) => [`${c.kind} ${c.name}`, c]));
    expect(byName.get("linux.ipv4.address lan0/192.168.50.1/24")).toMatchObject({ reason: "matches", desired: { address: "192.168.50.1", prefixLength: 24 } });
    expect(byName.get("linux.sysctl net.ipv4.ip_forward")).toMatchObject({ reason: "drifted", desired: { value: "1" }, observed: { value: "0" } });

    const host = snapshot(s.ns);
    const ledgerBefore = ledgerText();
    const refused = s.routerd(["adopt", "--apply", "--config", s.configPath]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("drifted");
    expect(ledgerText()).toBe(ledgerBefore);
    expect(snapshot(s.ns)).toBe(host);

    // The operator reconciles the drift away, then adopts.
    expect(s.routerd(["reconcile", "--once", "--config", s.configPath]).code).toBe(0);
    const afterReconcile = snapshot(s.ns);
    const adopted = s.routerd(["adopt", "--apply", "--json", "--config", s.configPath]);
    expect(adopted.code).toBe(0);
    expect(snapshot(s.ns)).toBe(afterReconcile);
    const entries = (JSON.parse(ledgerText()) as { entries: { kind: string; name: string; ownership: string }[] }).entries;
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "linux.ipv4.address", name: "lan0/192.168.50.1/24", ownership: "adopted" }),
        expect.objectContaining({ kind: "linux.sysctl", name: "net.ipv4.ip_forward", ownership: "adopted" }),
      ]),
    );
    expect((JSON.parse(s.routerd(["adopt", "--candidates", "--json", "--config", s.configPath]).stdout) as { adoptionCandidates: unknown[] }).adoptionCandidates).toEqual([]);

    // An adopted address whose resource goes away is released, not deleted.
    expect(s.reconcile([res("Interface", "lan", { ifname: "lan0" })]).code).toBe(0);
    expect(s.ns.ip("-4 addr show lan0").stdout).toContain("192.168.50.1/24");
    expect(ledgerText()).not.toContain("192.168.50.1");
  });
});

describe("a failing observer", () => {
  function fakeNft(): NodeJS.ProcessEnv {
    const bin = join(s.tmp.dir, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "nft"), "#!/bin/sh\necho 'nft: simulated failure' >&2\nexit 1\n");
    chmodSync(join(bin, "nft"), 0o755);
    return { ...process.env, PATH: `${bin}:${process.env.PATH}` };
  }

  it("makes its kinds unknown: no creation, no cleanup, and the plan says so", () => {
    const withoutNat = fullResources().filter((r) => !["masq", "web"].includes(r.name));
    expect(s.reconcile(fullResources()).code).toBe(0);
    const env = fakeNft();

    const plan = s.routerd(["plan", "--json", "--config", s.writeConfig(withoutNat)], env);
    expect(plan.code).toBe(0);
    const parsed = JSON.parse(plan.stdout) as Parameters<typeof changes>[0];
    expect(parsed.unknownKinds).toEqual(expect.arrayContaining([expect.objectContaining({ kind: "nft.table", reason: expect.stringContaining("simulated failure") })]));
    expect(changes(parsed, "delete")).toEqual([]);

    const run = s.routerd(["reconcile", "--once", "--config", s.configPath], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("? nft.table: inventory unknown");
    // The real nft shows the table is still there, and the ledger still owns it.
    expect(s.ns.exec("nft", ["list", "tables"]).stdout).toContain("table ip routerd_nat");
    expect((JSON.parse(ledgerText()) as { entries: { kind: string; name: string }[] }).entries).toContainEqual(expect.objectContaining({ kind: "nft.table", name: "ip/routerd_nat" }));

    // Creation is blocked too: remove a table with the real nft, then plan with the failing one.
    s.ns.exec("nft", ["delete", "table", "inet", "routerd_filter"]);
    const again = s.routerd(["reconcile", "--once", "--json", "--config", s.writeConfig(fullResources())], env);
    expect(again.code).toBe(0);
    expect(changes(JSON.parse(again.stdout) as Parameters<typeof changes>[0], "unknown")).toContain("nft.table inet/routerd_filter");
    expect(s.ns.exec("nft", ["list", "tables"]).stdout).not.toContain("routerd_filter");

    // With nft working again, the next run converges.
    expect(s.reconcile(fullResources()).code).toBe(0);
    expect(s.ns.exec("nft", ["list", "tables"]).stdout).toContain("routerd_filter");
    expect(s.routerd(["plan", "--detailed-exitcode", "--config", s.configPath]).code).toBe(0);
  });
});
