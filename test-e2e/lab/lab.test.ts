// `npm run lab` (the README's first command) end to end, with its own namespace prefix and lab dir so it
// cannot collide with a lab an operator has up: up (all checks PASS), status, check, down twice.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO, sh, tempDir, uniqueName } from "../lib/netns.js";

const name = uniqueName("rdlt").replace("-", "");
const tmp = tempDir("routerd-lab-test-");
const dir = join(tmp.dir, "lab");
const env = { ...process.env, ROUTERD_LAB_NAME: name, ROUTERD_LAB_DIR: dir };
const lab = (cmd: string) => sh("bash", [join(REPO, "scripts/lab.sh"), cmd], { env, allowFail: true });
const namespaces = () => sh("ip", ["netns", "list"]).stdout.split("\n").filter((l) => l.startsWith(`${name}-`));

afterAll(() => {
  lab("down");
  tmp.cleanup();
});

describe("npm run lab", () => {
  it("builds the lab, reconciles the NAT gateway and proves NAT, port forwards and hairpin", () => {
    const up = lab("up");
    expect(up.stdout + up.stderr).not.toMatch(/FAIL/);
    expect(up.code).toBe(0);
    expect(up.stdout).toMatch(/PASS/);
    expect(namespaces().length).toBe(3);
    expect(lab("status").code).toBe(0);
    const again = lab("check");
    expect(again.code).toBe(0);
    expect(again.stdout).not.toMatch(/FAIL/);
  });

  it("refuses a second up, and tears down completely, twice", () => {
    expect(lab("up").code).not.toBe(0);
    expect(lab("down").code).toBe(0);
    expect(namespaces()).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    expect(lab("down").code).toBe(0);
    expect(lab("status").code).toBe(3);
  });
});
