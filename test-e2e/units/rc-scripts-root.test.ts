// routerd's own daemons and a TailscaleNode under `--supervisor rc.d` (FreeBSD's form of the generated units),
// under a test root: reconcile writes one rc.d script per daemon instance (routerd_<daemon>_<instance>, mode
// 0755) and its own /etc/rc.conf.d/<name> enabling it, all ledger-owned and shown by plan; the scripts parse
// with `sh -n`; going back to the built-in supervisor removes exactly those files; the shipped scripts, a
// foreign routerd_* look-alike and an operator's rc.conf.d file are never touched. Nothing runs on FreeBSD
// here (no rc, no service(8)): docs/serve.md says what was not run.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readLedger } from "@routerd/resource";
import { afterEach, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { sh } from "../lib/netns.js";
import { RouterScenario, type PlanJson } from "../lib/scenario.js";

const RCD = ["--supervisor", "rc.d"];
const SCRIPTS = ["routerd_dhcpv4_client_uplink", "routerd_healthcheck_default", "routerd_tailscale_edge"];
const resources = [
  res("Interface", "wan", { ifname: "wan0" }),
  res("DHCPv4Client", "uplink", { interface: "wan", hostname: "router1" }),
  res("HealthCheck", "gw", { target: "192.0.2.1" }),
  res("TailscaleNode", "edge", { hostname: "router1", advertiseRoutes: ["192.168.50.0/24"] }),
];

let scenario: RouterScenario | undefined;
afterEach(() => {
  scenario?.destroy();
  scenario = undefined;
});

const artifacts = (plan: PlanJson) => (plan as unknown as { resources: { artifacts: { kind: string; name: string; change: string }[] }[] }).resources.flatMap((r) => r.artifacts);

describe("per-instance rc.d scripts (--supervisor rc.d, test root)", () => {
  it("plans, writes, enables and records one script per instance; builtin again removes only those", () => {
    const s = (scenario = new RouterScenario());
    const rcd = join(s.root, "usr/local/etc/rc.d");
    const confd = join(s.root, "etc/rc.conf.d");
    mkdirSync(rcd, { recursive: true });
    mkdirSync(confd, { recursive: true });
    // What a package would have installed, a look-alike routerd never wrote, and an operator's own setting.
    const foreign = { [join(rcd, "routerd_dhcpv4_client")]: "#!/bin/sh\n# shipped\n", [join(rcd, "routerd_custom")]: "#!/bin/sh\n# mine\n", [join(rcd, "dhcpcd")]: "#!/bin/sh\n", [join(confd, "routerd_custom")]: 'routerd_custom_enable="YES"\n' };
    for (const [path, text] of Object.entries(foreign)) writeFileSync(path, text);

    const planned = artifacts(s.planJson(resources, RCD).plan);
    expect(planned.filter((a) => a.kind === "freebsd.rcScript").map((a) => `${a.name} ${a.change}`).sort()).toEqual(SCRIPTS.map((n) => `${n} create`));
    expect(planned.some((a) => a.kind === "routerd.daemon" || a.kind === "systemd.service")).toBe(false);

    const r = s.reconcile(resources, RCD);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    for (const name of SCRIPTS) {
      const script = join(rcd, name);
      expect(statSync(script).mode & 0o777).toBe(0o755);
      expect(sh("sh", ["-n", script], { allowFail: true }).code).toBe(0);
      expect(readFileSync(join(confd, name), "utf8")).toContain(`${name}_enable="YES"\n`);
      expect(readLedger(s.stateDir).get("freebsd.rcScript", name)).toMatchObject({ ownership: "created" });
    }
    expect(readFileSync(join(rcd, SCRIPTS[0]!), "utf8")).toContain(`/usr/local/bin/routerd-dhcpv4-client --instance uplink --run-dir ${join(s.stateDir, "run")} --state-dir ${s.stateDir} --interface wan0 --hostname router1"\n`);
    expect(readFileSync(join(rcd, SCRIPTS[2]!), "utf8")).toContain("up --reset --hostname=router1 --advertise-routes=192.168.50.0/24");
    expect(readFileSync(join(s.stateDir, "supervisor"), "utf8")).toBe("rc.d\n");

    // Recorded: a plan without --supervisor plans the same scripts, unchanged.
    const again = s.planJson(resources).plan;
    expect([again.summary.create, again.summary.update, again.summary.delete]).toEqual([0, 0, 0]);

    // An operator who edits a generated file sees the drift, and reconcile puts routerd's text back.
    writeFileSync(join(confd, SCRIPTS[1]!), `${SCRIPTS[1]}_enable="NO"\n`);
    const drift = artifacts(s.planJson(resources).plan).filter((a) => a.kind === "freebsd.rcScript" && a.change === "update");
    expect(drift.map((a) => `${a.name} ${a.change}`)).toEqual([`${SCRIPTS[1]} update`]);
    expect(s.reconcile(resources).code).toBe(0);
    expect(readFileSync(join(confd, SCRIPTS[1]!), "utf8")).toContain(`${SCRIPTS[1]}_enable="YES"\n`);

    // Back to the built-in supervisor, without the client (whose undecided lease would hold its script, as for
    // a unit): routerd's scripts and their rc.conf.d files go, everything else stays byte for byte.
    const gone = s.reconcile(resources.filter((x) => x.kind !== "DHCPv4Client"), ["--supervisor", "builtin"]);
    expect(gone.code, gone.stderr + gone.stdout).toBe(0);
    for (const name of SCRIPTS) {
      expect(existsSync(join(rcd, name))).toBe(false);
      expect(existsSync(join(confd, name))).toBe(false);
      expect(readLedger(s.stateDir).get("freebsd.rcScript", name)).toBeUndefined();
    }
    for (const [path, text] of Object.entries(foreign)) expect(readFileSync(path, "utf8")).toBe(text);
  });
});
