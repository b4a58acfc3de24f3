// systemd units pass `systemd-analyze verify` (with ExecStart pointed at an executable that exists here)
// and rc.d scripts parse with `sh -n`; both match what the renderer produces.
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { INTERFACE, PROGRAMS, rcScripts, systemdUnits } from "@routerd/render";
import { afterAll, describe, expect, it } from "vitest";
import { REPO, ROUTERD, sh, tempDir } from "../lib/netns.js";

const tmp = tempDir("routerd-units-");
afterAll(() => tmp.cleanup());
const units = readdirSync(join(REPO, "systemd")).filter((f) => f.endsWith(".service"));
const scripts = readdirSync(join(REPO, "rc.d"));

describe("systemd units", () => {
  it("are the renderer's output, one per program", () => {
    const rendered = systemdUnits(PROGRAMS);
    expect(units.sort()).toEqual([...rendered.keys()].sort());
    for (const u of units) expect(readFileSync(join(REPO, "systemd", u), "utf8")).toBe(rendered.get(u));
  });

  it.each(units)("%s passes systemd-analyze verify without warnings", (unit) => {
    const text = readFileSync(join(REPO, "systemd", unit), "utf8").replace(/\/usr\/bin\/routerd[a-z0-9-]*/g, ROUTERD);
    const name = unit.replace("@.service", "@test0.service");
    writeFileSync(join(tmp.dir, unit), text);
    if (name !== unit) copyFileSync(join(tmp.dir, unit), join(tmp.dir, name));
    const r = sh("systemd-analyze", ["verify", "--man=no", join(tmp.dir, name)], { allowFail: true });
    expect(r.stderr.trim()).toBe("");
    expect(r.code).toBe(0);
  });

  it("bound capabilities and protect the system", () => {
    for (const u of units) {
      const text = readFileSync(join(REPO, "systemd", u), "utf8");
      expect(text).toMatch(/^CapabilityBoundingSet=CAP_/m);
      expect(text).toContain("ProtectSystem=strict");
      expect(text).toContain("NoNewPrivileges=yes");
      expect(text).toMatch(/^Restart=on-failure$/m);
    }
  });
});

describe("rc.d scripts", () => {
  it("are the renderer's output", () => {
    const rendered = rcScripts(PROGRAMS);
    expect(scripts.sort()).toEqual([...rendered.keys()].sort());
    for (const s of scripts) expect(readFileSync(join(REPO, "rc.d", s), "utf8")).toBe(rendered.get(s));
  });

  it.each(scripts)("%s parses with sh -n and follows rc.subr conventions", (script) => {
    const path = join(REPO, "rc.d", script);
    expect(sh("sh", ["-n", path], { allowFail: true }).code).toBe(0);
    const text = readFileSync(path, "utf8");
    expect(text).toMatch(/^# PROVIDE: \w+$/m);
    expect(text).toContain(". /etc/rc.subr");
    expect(text).toMatch(/^rcvar="\w+_enable"$/m);
    expect(text.trimEnd().endsWith('run_rc_command "$1"')).toBe(true);
  });
});

describe("instance interfaces", () => {
  const templated = PROGRAMS.filter((p) => p.args.includes(INTERFACE));

  it("DHCP clients are the programs that take an interface per instance", () => {
    expect(templated.map((p) => p.program).sort()).toEqual(["routerd-dhcpv4-client", "routerd-dhcpv6-client"]);
  });

  it.each(templated.map((p) => p.program))("systemd: %s runs on ROUTERD_INTERFACE, the instance name unless its env file says otherwise", (program) => {
    const text = readFileSync(join(REPO, "systemd", `${program}@.service`), "utf8");
    const lines = text.split("\n");
    const at = (prefix: string) => lines.findIndex((l) => l.startsWith(prefix));
    expect(lines).toContain("Environment=ROUTERD_INTERFACE=%i");
    expect(lines.some((l) => /^EnvironmentFile=-\/etc\/routerd\/dhcpv[46]-client\/%i\.env$/.test(l))).toBe(true);
    // The file is read after the default, so its value wins.
    expect(at("EnvironmentFile=")).toBeGreaterThan(at("Environment="));
    expect(lines[at("ExecStart=")]).toContain("--instance %i --interface ${ROUTERD_INTERFACE} ");
  });

  // The rc.d script runs under sh with rc.subr and daemon(8) replaced by stubs that print what would run.
  it.each(templated.map((p) => p.program.replace(/-/g, "_")))("rc.d: %s takes <name>_<instance>_interface from rc.conf, else the instance name", (script) => {
    const text = readFileSync(join(REPO, "rc.d", script), "utf8")
      .replace(". /etc/rc.subr", 'load_rc_config() { :; }\nrun_rc_command() { $start_cmd; }')
      .replaceAll("/usr/sbin/daemon ", "echo daemon ");
    const path = join(tmp.dir, script);
    writeFileSync(path, text);
    const r = sh("sh", [path, "start"], {
      allowFail: true,
      env: { ...process.env, [`${script}_instances`]: "wan-1 em1", [`${script}_wan_1_interface`]: "igb0" },
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("--instance wan-1 --interface igb0 ");
    expect(lines[1]).toContain("--instance em1 --interface em1 ");
  });
});
