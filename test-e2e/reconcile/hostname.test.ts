// Behaviour 8: the hostname is changed only inside a UTS namespace the test made.
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res, routerYaml } from "../lib/config.js";
import { Netns, ROUTERD, sh, tempDir } from "../lib/netns.js";
import { writeFileSync } from "node:fs";

let ns: Netns;
let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  ns = Netns.create("rd-uts");
  tmp = tempDir();
});
afterAll(() => {
  ns.destroy();
  tmp.cleanup();
});

describe("Hostname", () => {
  it("sets the UTS name in its own namespace, is idempotent, and leaves the real host alone", () => {
    const hostBefore = hostname();
    const config = join(tmp.dir, "router.yaml");
    writeFileSync(config, routerYaml([res("Hostname", "system", { hostname: "router-e2e.example.net" })]));
    const state = join(tmp.dir, "state");
    // One UTS namespace for the whole script: reconcile, observe, reconcile again, plan.
    const script = [
      `"${process.execPath}" "${ROUTERD}" reconcile --once --config "${config}" --state-dir "${state}" --root "${tmp.dir}/root"`,
      "echo name=$(cat /proc/sys/kernel/hostname)",
      `"${process.execPath}" "${ROUTERD}" plan --detailed-exitcode --config "${config}" --state-dir "${state}" --root "${tmp.dir}/root"`,
      "echo plan=$?",
    ].join("\n");
    const r = sh("ip", ["netns", "exec", ns.name, "unshare", "--uts", "sh", "-c", script], { allowFail: true });
    expect(r.stdout).toContain("name=router-e2e.example.net");
    expect(r.stdout).toContain("plan=0");
    expect(hostname()).toBe(hostBefore);
    expect(readFileSync("/proc/sys/kernel/hostname", "utf8").trim()).toBe(hostBefore);
  });
});
