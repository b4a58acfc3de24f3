// RouterdCluster: two `routerd serve` on one lease path. Exactly one leads and changes its host; when the
// leader is killed, the standby leads within one TTL.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res, routerYaml } from "../lib/config.js";
import { Netns, tempDir } from "../lib/netns.js";
import { clusterRole, startServe, until, type ServeProcess } from "../lib/serve.js";

const TTL_MS = 3000;
const tmp = tempDir("routerd-cluster-");
const nodes: { ns: Netns; serve?: ServeProcess; name: string }[] = [];

beforeAll(() => {
  for (const name of ["a", "b"]) {
    const ns = Netns.create(`rd-cl${name}`);
    ns.veth("wan0", "wan0p");
    nodes.push({ ns, name });
  }
  writeFileSync(
    join(tmp.dir, "router.yaml"),
    routerYaml([
      res("Interface", "wan", { ifname: "wan0" }),
      res("NAT44Rule", "masq", { egressInterface: "wan" }),
      { apiVersion: "system.routerd.net/v1alpha1", kind: "RouterdCluster", name: "pair", spec: { leasePath: "/shared/lease.json", ttl: `${TTL_MS / 1000}s` } },
    ]),
  );
});
afterAll(async () => {
  for (const n of nodes) {
    await n.serve?.stop("SIGKILL");
    n.ns.destroy();
  }
  tmp.cleanup();
});

const start = (n: (typeof nodes)[number]) =>
  (n.serve = startServe(n.ns, {
    config: join(tmp.dir, "router.yaml"),
    stateDir: join(tmp.dir, n.name, "state"),
    runDir: join(tmp.dir, n.name, "run"),
    root: join(tmp.dir, "root"), // both see the same lease file: <root>/shared/lease.json
    extra: ["--node-name", n.name],
  }));
const hasNat = (n: (typeof nodes)[number]) => n.ns.exec("nft", ["list", "tables"]).stdout.includes("routerd_nat");

describe("two routerd serve on one lease", () => {
  it("elects exactly one leader, and only the leader changes its host", async () => {
    const [a, b] = nodes as [(typeof nodes)[number], (typeof nodes)[number]];
    start(a);
    await until("a leads", () => clusterRole(a.ns, a.serve!.runDir) === "leader");
    start(b);
    await until("b reports standby", () => clusterRole(b.ns, b.serve!.runDir) === "standby");
    await until("a reconciled", () => hasNat(a));
    // A few cycles later b still has not touched its host.
    await new Promise((r) => setTimeout(r, 2500));
    expect(clusterRole(a.ns, a.serve!.runDir)).toBe("leader");
    expect(clusterRole(b.ns, b.serve!.runDir)).toBe("standby");
    expect(hasNat(b)).toBe(false);
  });

  it("lets the standby lead within one TTL after the leader is killed", async () => {
    const [a, b] = nodes as [(typeof nodes)[number], (typeof nodes)[number]];
    await a.serve!.stop("SIGKILL");
    const died = Date.now();
    await until("b leads", () => clusterRole(b.ns, b.serve!.runDir) === "leader", 10_000, 50);
    const takeover = Date.now() - died;
    expect(takeover).toBeLessThanOrEqual(TTL_MS);
    await until("b reconciled its host", () => hasNat(b));
  });
});
