// The command lines routerd runs per package manager (golden: testdata/package-managers.txt), and how their
// listings are read. apt's are also run for real (test-e2e/packages); dnf's and pkg's only here.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PACKAGE_MANAGERS, type ManagerName } from "./package-managers.js";

const GOLDEN = new URL("testdata/package-managers.txt", import.meta.url).pathname;

function commandLines(): string {
  const out: string[] = [];
  for (const m of Object.keys(PACKAGE_MANAGERS) as ManagerName[]) {
    const c = PACKAGE_MANAGERS[m];
    for (const root of ["/", "/srv/test-root"]) {
      out.push(`# ${m} (root ${root}; database ${c.database})`, `list:    ${c.list(root).join(" ")}`, `refresh: ${c.refresh(root).join(" ")}`, `install: ${c.install(root, "chrony").join(" ")}`, "");
    }
  }
  return out.join("\n");
}

describe("package managers", () => {
  it("derive the same command lines as the golden file", () => {
    if (process.env.ROUTERD_UPDATE_GOLDEN === "1") writeFileSync(GOLDEN, commandLines());
    expect(commandLines()).toBe(readFileSync(GOLDEN, "utf8"));
  });

  it("read rpm's and pkg's listings as name and version", () => {
    expect(PACKAGE_MANAGERS.dnf.parse("chrony\t4.5-3.fc40\nnftables\t1.0.9-3.fc40\n")).toEqual([
      { kind: "package", name: "dnf/chrony", attributes: { manager: "dnf", name: "chrony", version: "4.5-3.fc40" } },
      { kind: "package", name: "dnf/nftables", attributes: { manager: "dnf", name: "nftables", version: "1.0.9-3.fc40" } },
    ]);
    expect(PACKAGE_MANAGERS.pkg.parse("wireguard-tools\t1.0.20210914_3\n\n")).toEqual([{ kind: "package", name: "pkg/wireguard-tools", attributes: { manager: "pkg", name: "wireguard-tools", version: "1.0.20210914_3" } }]);
  });

  it("never put a package name where an option would be read", () => {
    // Names are validated by the Package kind (^[a-z0-9]...), so none starts with "-"; the name is always last.
    for (const m of Object.keys(PACKAGE_MANAGERS) as ManagerName[]) expect(PACKAGE_MANAGERS[m].install("/", "chrony").at(-1)).toBe("chrony");
  });
});
