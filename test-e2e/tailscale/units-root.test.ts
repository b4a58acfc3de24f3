// Generated service artifacts under a test root: a TailscaleNode's unit (routerd-tailscale-<name>.service) is
// written and enabled by reconcile, recorded in the ledger, kept in step with the spec, and removed (file and
// enablement) when the node goes; units routerd did not write are never touched. The unit passes
// `systemd-analyze verify`, and no command line in it holds the auth key. No systemd runs here: only the
// files under --root are checked (docs/tailscale.md says what is not tested).
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readLedger } from "@routerd/resource";
import { afterEach, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { RouterScenario } from "../lib/scenario.js";
import { ROUTERD, sh } from "../lib/netns.js";

const UNIT = "routerd-tailscale-edge.service";
const SYSTEMD = ["--supervisor", "systemd"];
const node = (spec: Record<string, unknown>) => res("TailscaleNode", "edge", { hostname: "router1", authKeyFile: "/etc/routerd/tailscale/edge.key", advertiseRoutes: ["192.168.50.0/24"], ...spec });
const lan = res("Interface", "lan", { ifname: "lan0", managed: false });

let scenario: RouterScenario | undefined;
afterEach(() => {
  scenario?.destroy();
  scenario = undefined;
});

describe("generated units under a test root (TailscaleNode)", () => {
  it("writes, enables, records, updates and removes only routerd's own unit", () => {
    const s = (scenario = new RouterScenario());
    const units = join(s.root, "etc/systemd/system");
    const wants = join(units, "multi-user.target.wants", UNIT);
    // Someone else's units, one even named like routerd's: never touched.
    mkdirSync(units, { recursive: true });
    writeFileSync(join(units, "tailscaled.service"), "[Service]\nExecStart=/bin/true\n");
    writeFileSync(join(units, "routerd-custom.service"), "[Service]\nExecStart=/bin/true\n");

    // Serve's built-in supervisor (the default) runs tailscaled itself: no unit.
    const builtin = s.planJson([lan, node({})]).plan as unknown as { resources: { id: string; artifacts: { kind: string; name: string; change: string }[] }[] };
    expect(builtin.resources.find((r) => r.id === "TailscaleNode/edge")?.artifacts).toEqual([expect.objectContaining({ kind: "routerd.daemon", name: "tailscale/edge", change: "create" })]);

    const planned = s.planJson([lan, node({})], SYSTEMD).plan as unknown as { resources: { id: string; artifacts: { kind: string; name: string; change: string }[] }[] };
    expect(planned.resources.find((r) => r.id === "TailscaleNode/edge")?.artifacts).toEqual([expect.objectContaining({ kind: "systemd.service", name: UNIT, change: "create" })]);

    const r = s.reconcile([lan, node({})], SYSTEMD);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const text = readFileSync(join(units, UNIT), "utf8");
    expect(text).toContain("--auth-key=file:/etc/routerd/tailscale/edge.key");
    expect(text).toContain("--advertise-routes=192.168.50.0/24");
    expect(lstatSync(wants).isSymbolicLink()).toBe(true);
    expect(readlinkSync(wants)).toBe(`/etc/systemd/system/${UNIT}`);
    expect(readLedger(s.stateDir).get("systemd.service", UNIT)).toMatchObject({ ownership: "created", owner: "net.routerd.net/v1alpha1/TailscaleNode/edge" });

    // systemd accepts it (ExecStart pointed at binaries that exist here: tailscale is not in Debian).
    const verifyDir = join(s.tmp.dir, "verify");
    mkdirSync(verifyDir);
    writeFileSync(join(verifyDir, UNIT), text.replaceAll("/usr/sbin/tailscaled", ROUTERD).replaceAll("/usr/bin/tailscale", ROUTERD));
    const verify = sh("systemd-analyze", ["verify", "--man=no", join(verifyDir, UNIT)], { allowFail: true });
    expect(verify.stderr.trim()).toBe("");

    // The choice is recorded: plan without --supervisor plans the unit, not the built-in daemon.
    const again = s.planJson([lan, node({})]).plan;
    expect([again.summary.create, again.summary.update, again.summary.delete]).toEqual([0, 0, 0]);

    // A spec change rewrites the unit (plan says update).
    const changed = s.planJson([lan, node({ acceptRoutes: true })]).plan as unknown as { resources: { id: string; artifacts: { change: string }[] }[] };
    expect(changed.resources.find((x) => x.id === "TailscaleNode/edge")?.artifacts[0]?.change).toBe("update");
    expect(s.reconcile([lan, node({ acceptRoutes: true })]).code).toBe(0);
    expect(readFileSync(join(units, UNIT), "utf8")).toContain("--accept-routes=true");

    // state: absent removes the unit and its enablement; the others stay byte for byte.
    const gone = s.reconcile([lan, node({ state: "absent" })]);
    expect(gone.code, gone.stderr + gone.stdout).toBe(0);
    expect(existsSync(join(units, UNIT))).toBe(false);
    expect(existsSync(wants)).toBe(false);
    expect(readLedger(s.stateDir).get("systemd.service", UNIT)).toBeUndefined();
    expect(readFileSync(join(units, "tailscaled.service"), "utf8")).toBe("[Service]\nExecStart=/bin/true\n");
    expect(readFileSync(join(units, "routerd-custom.service"), "utf8")).toBe("[Service]\nExecStart=/bin/true\n");
  });

  it("refuses an inline auth key or one from the environment, and changes nothing", () => {
    const s = (scenario = new RouterScenario());
    const r = s.reconcile([lan, { ...node({ authKey: "tskey-auth-secret" }), spec: { hostname: "router1", authKey: "tskey-auth-secret" } }]);
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/authKey.*not accepted.*authKeyFile/s);
    expect(r.stderr + r.stdout).not.toContain("tskey-auth-secret");
    const env = s.reconcile([lan, node({ authKeyEnv: "TS_AUTHKEY" })]);
    expect(env.stderr + env.stdout).toMatch(/command line/);
    expect(existsSync(join(s.root, "etc/systemd/system", UNIT))).toBe(false);
  });
});
