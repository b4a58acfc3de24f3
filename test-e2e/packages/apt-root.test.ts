// Package and derived packages against a real apt and dpkg working on a test root: a local apt repository
// built in the test (dpkg-deb + apt-ftparchive, a `file:` source), the root's own dpkg database. The host's
// packages are never read or changed. A missing derived package makes its resource Pending; --install-packages
// installs it; a Package installs its entries; nothing is ever uninstalled.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { res, routerYaml, type ResourceDoc } from "../lib/config.js";
import { Netns, routerd, sh, tempDir, type Run } from "../lib/netns.js";

let ns: Netns;
let tmp: { dir: string; cleanup(): void };
let root: string;
let stateDir: string;

/** A package with one file under /usr/share/<name>, built with dpkg-deb into the repository. */
function buildDeb(repo: string, name: string, version: string): void {
  const src = join(tmp.dir, "build", name);
  mkdirSync(join(src, "DEBIAN"), { recursive: true });
  mkdirSync(join(src, "usr/share", name), { recursive: true });
  writeFileSync(join(src, "usr/share", name, "marker"), `${name} ${version}\n`);
  writeFileSync(join(src, "DEBIAN/control"), `Package: ${name}\nVersion: ${version}\nArchitecture: all\nMaintainer: routerd tests <tests@example.net>\nDescription: test package\n`);
  sh("dpkg-deb", ["--build", "-Zgzip", src, repo]);
}

function dpkgInstalled(): string[] {
  const r = sh("dpkg-query", [`--admindir=${join(root, "var/lib/dpkg")}`, "-W", "-f", "${Package} ${db:Status-Abbrev}\n"]);
  return r.stdout.split("\n").filter((l) => / ii ?$/.test(l)).map((l) => l.split(" ")[0]!).sort();
}

function reconcile(resources: ResourceDoc[], extra: string[] = []): Run {
  const config = join(tmp.dir, "router.yaml");
  writeFileSync(config, routerYaml(resources));
  return routerd(ns, ["reconcile", "--once", "--json", "--config", config, ...extra], { stateDir, root });
}

const status = (id: string) => (JSON.parse(readFileSync(join(stateDir, "status.json"), "utf8")) as { statuses: { owner: string; phase: string; reason?: string; message?: string }[] }).statuses.find((o) => o.owner.endsWith(`/${id}`));

beforeEach(() => {
  ns = Netns.create("rd-pkg");
  tmp = tempDir("routerd-pkg-");
  root = join(tmp.dir, "root");
  stateDir = join(tmp.dir, "state");
  const repo = join(tmp.dir, "repo");
  mkdirSync(repo);
  // Stand-ins under real names: only this root's dpkg database ever sees them.
  buildDeb(repo, "chrony", "99.0-test");
  buildDeb(repo, "routerd-test-tools", "1.0");
  buildDeb(repo, "routerd-test-extra", "1.0");
  writeFileSync(join(repo, "Packages"), sh("sh", ["-c", 'cd "$1" && apt-ftparchive packages .', "sh", repo]).stdout);
  for (const d of ["etc/apt/sources.list.d", "etc/apt/apt.conf.d", "etc/apt/preferences.d", "var/lib/apt/lists/partial", "var/cache/apt/archives/partial", "var/lib/dpkg/info", "var/lib/dpkg/updates", "var/log/apt"]) {
    mkdirSync(join(root, d), { recursive: true });
  }
  writeFileSync(join(root, "var/lib/dpkg/status"), "");
  writeFileSync(join(root, "etc/os-release"), "ID=debian\nVERSION_ID=12\n");
  writeFileSync(join(root, "etc/apt/sources.list"), `deb [trusted=yes] file:${repo} ./\n`);
});

afterEach(() => {
  ns?.destroy();
  tmp?.cleanup();
});

const ntp = res("NTPClient", "time", { provider: "chrony", servers: ["192.0.2.123"] });
const SOURCES = "etc/chrony/sources.d/routerd.sources";

describe("packages on a test root with a local apt repository", () => {
  it("holds a resource whose package is missing (Pending), installs it with --install-packages, never uninstalls", { timeout: 240_000 }, () => {
    const held = reconcile([ntp]);
    expect(held.code).toBe(0);
    const plan = JSON.parse(held.stdout) as { resources: { id: string; state: string; reason?: string; artifacts: { kind: string; name: string; action: string; change: string }[] }[] };
    const r = plan.resources.find((x) => x.id === "NTPClient/time")!;
    expect(r).toMatchObject({ state: "pending", reason: expect.stringContaining("waiting for package chrony") });
    expect(r.artifacts).toContainEqual(expect.objectContaining({ kind: "package", name: "apt/chrony", action: "observe" }));
    expect(existsSync(join(root, SOURCES))).toBe(false);
    expect(status("NTPClient/time")).toMatchObject({ phase: "Pending", reason: "PackageMissing" });
    expect(dpkgInstalled()).toEqual([]);

    const installed = reconcile([ntp], ["--install-packages"]);
    expect(installed.stderr).toBe("");
    expect(installed.code).toBe(0);
    expect(dpkgInstalled()).toEqual(["chrony"]);
    expect(readFileSync(join(root, "usr/share/chrony/marker"), "utf8")).toBe("chrony 99.0-test\n");
    expect(readFileSync(join(root, SOURCES), "utf8")).toContain("server 192.0.2.123 iburst");
    expect(status("NTPClient/time")).toMatchObject({ phase: "Ready" });

    // Without the flag now: installed, so nothing waits and nothing changes.
    const again = routerd(ns, ["plan", "--json", "--detailed-exitcode", "--config", join(tmp.dir, "router.yaml")], { stateDir, root });
    expect(again.code).toBe(0);

    // The resource goes away: its block goes, the package stays.
    expect(reconcile([], ["--allow-empty"]).code).toBe(0);
    expect(readFileSync(join(root, SOURCES), "utf8")).not.toContain("192.0.2.123");
    expect(dpkgInstalled()).toEqual(["chrony"]);
  });

  it("a Package installs its entries for this OS only, optional ones too, and removing it uninstalls nothing", { timeout: 240_000 }, () => {
    // Optional entries are installed as well; one the repository does not have fails alone and holds nothing back.
    const optional = { os: "debian", names: ["routerd-test-extra", "routerd-test-absent"], optional: true };
    const pkg = res("Package", "tools", { packages: [{ os: "debian", names: ["routerd-test-tools"] }, optional, { os: "freebsd", names: ["routerd-test-tools-bsd"] }] });
    const r = reconcile([pkg]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(dpkgInstalled()).toEqual(["routerd-test-extra", "routerd-test-tools"]);
    expect(r.stdout).not.toContain("routerd-test-tools-bsd");
    expect(status("Package/tools")).toMatchObject({ phase: "Ready" });
    // The next plan still shows the one that could not be installed.
    const next = JSON.parse(routerd(ns, ["plan", "--json", "--config", join(tmp.dir, "router.yaml")], { stateDir, root }).stdout) as { resources: { artifacts: { kind: string; name: string; change: string }[] }[] };
    expect(next.resources.flatMap((x) => x.artifacts).filter((a) => a.kind === "package" && a.change !== "unchanged").map((a) => `${a.name} ${a.change}`)).toEqual(["apt/routerd-test-absent create"]);

    const removed = reconcile([res("Package", "other", { packages: [{ os: "fedora", names: ["x"] }] })]);
    expect(removed.code).toBe(0);
    expect(dpkgInstalled()).toEqual(["routerd-test-extra", "routerd-test-tools"]);
    expect(existsSync(join(root, "usr/share/routerd-test-tools/marker"))).toBe(true);
    const ledger = JSON.parse(readFileSync(join(stateDir, "artifacts.json"), "utf8")) as { entries: { kind: string }[] };
    expect(ledger.entries.filter((e) => e.kind === "package")).toEqual([]);
  });
});
