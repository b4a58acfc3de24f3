// systemd units pass `systemd-analyze verify` (with ExecStart pointed at an executable that exists here)
// and rc.d scripts parse with `sh -n`; both match what the renderer produces.
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROGRAMS, rcScripts, systemdUnits } from "@routerd/render";
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
