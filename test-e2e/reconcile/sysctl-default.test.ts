// A `net.ipv4.conf.default.*` sysctl is for links created later: writing it must not change the links that
// exist (the kernel copies a new default to every link that never had the key written). Found by the lab:
// router-linux's default.rp_filter=2 turned the DHCPv4 uplink's rp_filter from 0 to 2 behind the plan's
// back, and the first DHCP offers were dropped.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res, routerYaml } from "../lib/config.js";
import { Netns, routerd, tempDir } from "../lib/netns.js";

let ns: Netns;
let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  ns = Netns.create("rd-sysctl");
  tmp = tempDir();
  ns.veth("up0", "other0");
});
afterAll(() => {
  ns.destroy();
  tmp.cleanup();
});

const rpFilter = (link: string) => ns.exec("cat", [`/proc/sys/net/ipv4/conf/${link}/rp_filter`]).stdout.trim();

describe("sysctl defaults", () => {
  it("a new conf.default value reaches links created later, not the links that exist", () => {
    expect([rpFilter("up0"), rpFilter("other0"), rpFilter("default")]).toEqual(["0", "0", "0"]);
    const config = join(tmp.dir, "router.yaml");
    writeFileSync(
      config,
      routerYaml([
        res("Sysctl", "new-links-loose", { key: "net.ipv4.conf.default.rp_filter", value: 2 }),
        // Already 0: the plan has nothing to write for it, so only the executor can keep it 0.
        res("Sysctl", "uplink-off", { key: "net.ipv4.conf.up0.rp_filter", value: 0 }),
      ]),
    );
    const opts = { stateDir: join(tmp.dir, "state"), root: join(tmp.dir, "root") };
    const run = routerd(ns, ["reconcile", "--once", "--config", config], opts);
    expect(run.code, run.stderr).toBe(0);
    expect(rpFilter("default")).toBe("2");
    expect(rpFilter("up0")).toBe("0");
    expect(rpFilter("other0")).toBe("0"); // not routerd's: untouched
    ns.ip("link add later0 type veth peer name later1");
    expect(rpFilter("later0")).toBe("2");
    expect(routerd(ns, ["plan", "--detailed-exitcode", "--config", config], opts).code).toBe(0);
  });
});
