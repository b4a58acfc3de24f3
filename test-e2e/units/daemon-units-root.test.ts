// routerd's own daemons under `--supervisor systemd`, under a test root: reconcile writes and enables one
// generated unit per daemon instance (routerd-<daemon>@<instance>.service, ledger-owned, shown by plan),
// the units pass `systemd-analyze verify`, going back to the built-in supervisor removes exactly those units,
// and a unit routerd did not write is never touched. `serve --supervisor systemd` writes the daemons'
// configs but starts none of them itself. No systemd runs here (docs/serve.md says what was not run).
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readLedger } from "@routerd/resource";
import { afterEach, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { RouterScenario, type PlanJson } from "../lib/scenario.js";
import { ROUTERD, sh } from "../lib/netns.js";
import { routerctl, startServe, until, type ServeProcess } from "../lib/serve.js";

const SYSTEMD = ["--supervisor", "systemd"];
const UNITS = ["routerd-dhcpv4-client@uplink.service", "routerd-healthcheck@default.service"];
const resources = [
  res("Interface", "wan", { ifname: "wan0" }),
  res("DHCPv4Client", "uplink", { interface: "wan", hostname: "router1" }),
  res("HealthCheck", "gw", { target: "192.0.2.1" }),
];

let scenario: RouterScenario | undefined;
let serve: ServeProcess | undefined;
afterEach(async () => {
  await serve?.stop();
  serve = undefined;
  scenario?.destroy();
  scenario = undefined;
});

const artifacts = (plan: PlanJson) => (plan as unknown as { resources: { artifacts: { kind: string; name: string; change: string }[] }[] }).resources.flatMap((r) => r.artifacts);

/** Processes of routerd's daemons started with this scenario's state dir. */
function daemonsUnder(stateDir: string): string[] {
  return readdirSync("/proc").filter((e) => /^\d+$/.test(e)).flatMap((e) => {
    try {
      const cmd = readFileSync(`/proc/${e}/cmdline`, "utf8");
      return cmd.includes(stateDir) && /routerd-(healthcheck|dhcpv4-client)/.test(cmd) ? [cmd] : [];
    } catch {
      return [];
    }
  });
}

describe("per-instance units for routerd's daemons (--supervisor systemd, test root)", () => {
  it("plans, writes, enables and records one unit per instance; builtin again removes only those", () => {
    const s = (scenario = new RouterScenario());
    const dir = join(s.root, "etc/systemd/system");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "routerd-custom.service"), "[Service]\nExecStart=/bin/true\n");
    writeFileSync(join(dir, "dhcpcd.service"), "[Service]\nExecStart=/bin/true\n");

    const builtin = artifacts(s.planJson(resources).plan);
    expect(builtin.filter((a) => a.kind === "routerd.daemon").map((a) => a.name).sort()).toEqual(["dhcpv4-client/uplink", "healthcheck/default"]);
    expect(builtin.some((a) => a.kind === "systemd.service")).toBe(false);

    const planned = artifacts(s.planJson(resources, SYSTEMD).plan);
    expect(planned.filter((a) => a.kind === "systemd.service").map((a) => `${a.name} ${a.change}`).sort()).toEqual(UNITS.map((u) => `${u} create`));
    expect(planned.some((a) => a.kind === "routerd.daemon")).toBe(false);

    const r = s.reconcile(resources, SYSTEMD);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    for (const unit of UNITS) {
      expect(lstatSync(join(dir, "multi-user.target.wants", unit)).isSymbolicLink()).toBe(true);
      expect(readLedger(s.stateDir).get("systemd.service", unit)).toMatchObject({ ownership: "created" });
    }
    const dhcp = readFileSync(join(dir, UNITS[0]!), "utf8");
    expect(dhcp).toContain(`ExecStart=/usr/bin/routerd-dhcpv4-client --instance uplink --run-dir ${join(s.stateDir, "run")} --state-dir ${s.stateDir} --interface wan0 --hostname router1\n`);

    // systemd accepts them (the program pointed at one that exists here).
    const verifyDir = join(s.tmp.dir, "verify");
    mkdirSync(verifyDir);
    for (const unit of UNITS) writeFileSync(join(verifyDir, unit), readFileSync(join(dir, unit), "utf8").replace(/ExecStart=\/usr\/bin\/routerd-[a-z0-9-]+/, `ExecStart=${ROUTERD}`));
    const verify = sh("systemd-analyze", ["verify", "--man=no", ...UNITS.map((u) => join(verifyDir, u))], { allowFail: true });
    expect(verify.stderr.trim()).toBe("");

    // Recorded: a plan without --supervisor plans the same units, unchanged.
    const again = s.planJson(resources).plan;
    expect([again.summary.create, again.summary.update, again.summary.delete]).toEqual([0, 0, 0]);

    // Back to the built-in supervisor: routerd's units go, the others stay byte for byte. The DHCPv4 client's
    // unit waits while the client is undecided (no daemon has reported its lease here): kept, as for every
    // artifact of a resource whose daemon state is unknown; the one of the HealthCheck goes now.
    const backPlan = s.planJson(resources, ["--supervisor", "builtin"]).plan as unknown as { gc: { skipped: { name: string; reason: string }[] } };
    expect(backPlan.gc.skipped).toEqual([expect.objectContaining({ name: UNITS[0], reason: expect.stringMatching(/undecided|pending/) })]);
    const back = s.reconcile(resources, ["--supervisor", "builtin"]);
    expect(back.code, back.stderr + back.stdout).toBe(0);
    expect(existsSync(join(dir, UNITS[0]!))).toBe(true);
    // Without the client, nothing holds it: it goes too.
    const gone = s.reconcile(resources.filter((r) => r.kind !== "DHCPv4Client"), ["--supervisor", "builtin"]);
    expect(gone.code, gone.stderr + gone.stdout).toBe(0);
    for (const unit of UNITS) {
      expect(existsSync(join(dir, unit))).toBe(false);
      expect(existsSync(join(dir, "multi-user.target.wants", unit))).toBe(false);
      expect(readLedger(s.stateDir).get("systemd.service", unit)).toBeUndefined();
    }
    expect(readFileSync(join(dir, "routerd-custom.service"), "utf8")).toBe("[Service]\nExecStart=/bin/true\n");
    expect(readFileSync(join(dir, "dhcpcd.service"), "utf8")).toBe("[Service]\nExecStart=/bin/true\n");
  });

  it("serve --supervisor systemd writes the daemons' configs and units but starts none of them", async () => {
    const s = (scenario = new RouterScenario());
    const runDir = join(s.tmp.dir, "run");
    serve = startServe(s.ns, { config: s.writeConfig(resources), stateDir: s.stateDir, runDir, root: s.root, extra: SYSTEMD });
    const config = join(s.stateDir, "healthcheck/default/config.json");
    await until("healthcheck config written", () => existsSync(config), 60_000);
    expect(JSON.parse(readFileSync(config, "utf8")).probes).toEqual([expect.objectContaining({ name: "gw", target: "192.0.2.1" })]);
    await until("units written", () => UNITS.every((u) => existsSync(join(s.root, "etc/systemd/system", u))), 60_000);
    expect(readFileSync(join(s.stateDir, "supervisor"), "utf8")).toBe("systemd\n");
    // A few cycles (interval 2 s): serve started no daemon of its own.
    await new Promise((r) => setTimeout(r, 5000));
    expect(daemonsUnder(s.stateDir)).toEqual([]);
    const daemons = await until("a finished cycle in serve's status", () => (routerctl(s.ns, ["status"], runDir).json as { details?: { daemons?: unknown[] } } | undefined)?.details?.daemons, 60_000);
    expect(daemons).toEqual([]);
    expect(daemonsUnder(s.stateDir)).toEqual([]);
  }, 120_000);
});
