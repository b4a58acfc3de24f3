import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hasPackageDatabase, parseDpkgQuery, readHostOs } from "./packages.js";

describe("packages on the host", () => {
  it("counts only installed packages (ii), not removed-with-config or half-installed ones", () => {
    const text = "chrony\tii \t4.3-2+deb12u1\ndnsmasq\trc \t2.89-1\nwg\tiU \t1.0\n\n";
    expect(parseDpkgQuery(text)).toEqual([{ kind: "package", name: "apt/chrony", attributes: { manager: "apt", name: "chrony", version: "4.3-2+deb12u1" } }]);
  });

  it("reads ID and ID_LIKE from the root's os-release, and sees whether it has a dpkg database", () => {
    const root = mkdtempSync(join(tmpdir(), "routerd-os-"));
    try {
      expect(readHostOs({ root })).toBeUndefined();
      expect(hasPackageDatabase({ root })).toBe(false);
      mkdirSync(join(root, "etc"));
      writeFileSync(join(root, "etc/os-release"), 'PRETTY_NAME="Ubuntu 24.04 LTS"\nID=ubuntu\nID_LIKE="debian"\n');
      expect(readHostOs({ root })).toEqual({ id: "ubuntu", like: ["debian"] });
      mkdirSync(join(root, "var/lib/dpkg"), { recursive: true });
      writeFileSync(join(root, "var/lib/dpkg/status"), "");
      expect(hasPackageDatabase({ root })).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
