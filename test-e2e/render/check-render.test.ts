// `routerd check` and `routerd render` against the real tools, in a namespace of their own: the example
// configs pass nft -c, dnsmasq --test and the sysctl keys (golden output); problems are reported with
// advice and exit 1; neither command changes anything.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res, routerYaml } from "../lib/config.js";
import { Netns, REPO, ROUTERD, pathWithout, snapshot, tempDir } from "../lib/netns.js";

const UPDATE = process.env.ROUTERD_UPDATE_GOLDEN === "1";
const EXAMPLES = ["examples/nat-gateway.yaml", "examples/original-config.yaml", "examples/two-uplink-policy.yaml", "examples/zone-firewall.yaml", "packages/api/src/testdata/all-kinds.yaml"];
let ns: Netns;
const tmp = tempDir("routerd-check-");
const stateDir = join(tmp.dir, "state");
beforeAll(() => {
  ns = Netns.create("rd-chk");
});
afterAll(() => {
  ns.destroy();
  tmp.cleanup();
});

function routerd(args: string[], env?: NodeJS.ProcessEnv) {
  return ns.exec(process.execPath, [ROUTERD, ...args, "--state-dir", stateDir, "--root", join(tmp.dir, "root"), "--run-dir", join(tmp.dir, "run")], { allowFail: true, ...(env ? { env } : {}) });
}

describe("routerd check", () => {
  it.each(EXAMPLES)("passes %s, as in its golden output, changing nothing", (file) => {
    const before = snapshot(ns);
    const name = basename(file, ".yaml");
    const r = routerd(["check", "--config", join(REPO, file)]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const text = r.stdout.replaceAll(REPO, "<repo>/");
    const golden = join(new URL("golden", import.meta.url).pathname, `check-${name}.txt`);
    if (UPDATE) writeFileSync(golden, text);
    expect(text).toBe(readFileSync(golden, "utf8"));
    expect(snapshot(ns)).toBe(before);
    expect(existsSync(stateDir)).toBe(false);
  });

  it("fails a sysctl key the kernel does not have, and a missing tool, with advice", () => {
    const config = join(tmp.dir, "bad.yaml");
    writeFileSync(config, routerYaml([res("Sysctl", "typo", { key: "net.ipv4.ip_forwarding", value: 1 }), res("Interface", "lan", { ifname: "lan0" }), res("NAT44Rule", "masq", { egressInterface: "lan" })]));
    const r = routerd(["check", "--config", config, "--json"]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { valid: boolean; ok: boolean; checks: { check: string; subject: string; status: string; detail?: string }[] };
    expect(out).toMatchObject({ valid: true, ok: false });
    expect(out.checks).toContainEqual({ check: "sysctl key", subject: "net.ipv4.ip_forwarding", status: "fail", detail: "/proc/sys/net/ipv4/ip_forwarding does not exist (a kernel module not loaded, or a misspelt key)" });
    expect(out.checks).toContainEqual({ check: "nft -c", subject: "ip/routerd_nat", status: "ok" });
    // Without nft on PATH the table cannot be checked: a failure that says what to install.
    const path = pathWithout(["nft"]);
    try {
      const noNft = routerd(["check", "--config", config, "--kind", "nft"], { ...process.env, PATH: path.path });
      expect(noNft.code).toBe(1);
      expect(noNft.stdout).toContain("FAIL  nft -c  ip/routerd_nat: nft is not installed (apt install nftables)");
    } finally {
      path.cleanup();
    }
  });

  it("reports an invalid config like validate does, and checks nothing", () => {
    const config = join(tmp.dir, "invalid.yaml");
    writeFileSync(config, routerYaml([res("Interface", "lan", { ifname: "lan0", speed: 10 })]));
    const r = routerd(["check", "--config", config]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/invalid\.yaml:\d+:\d+: error: Interface\/lan spec.speed/);
    expect(r.stdout).toBe("");
  });
});

describe("routerd render", () => {
  it("prints what reconcile would write without touching the host or the state dir", () => {
    const before = snapshot(ns);
    const r = routerd(["render", "--config", join(REPO, "examples", "zone-firewall.yaml"), "--kind", "nft,dnsmasq", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const outputs = JSON.parse(r.stdout) as { kind: string; name: string; content: string }[];
    expect(outputs.map((o) => o.kind)).toContain("nft");
    // What render prints is what nft accepts.
    for (const o of outputs.filter((x) => x.kind === "nft")) expect(ns.exec("nft", ["-c", "-f", "-"], { input: o.content, allowFail: true }).code).toBe(0);
    expect(snapshot(ns)).toBe(before);
    expect(existsSync(stateDir)).toBe(false);
    expect(routerd(["render", "--config", join(REPO, "examples", "zone-firewall.yaml"), "--kind", "bogus"]).stderr).toContain("unknown --kind bogus; choose from nft, dnsmasq");
  });
});
