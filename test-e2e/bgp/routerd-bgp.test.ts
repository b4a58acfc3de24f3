// routerd-bgp against real peers in namespaces: a gobgpd ISP (IPv4 and IPv6 sessions) and a bird2 IX peer.
// Routes both ways, per-neighbor import policy (a forbidden community, a too-long prefix), communities set
// on import, IPv6 paths in the FIB, ECMP over both peers, a peer going down, gobgpd killed and restarted
// with the FIB intact meanwhile, routerd-bgp killed (its gobgpd dies with it; a stale one left running is
// stopped at start, a foreign one never) and, with --keep-gobgpd, re-attached without touching the FIB, its routes
// changed behind its back put right (ip monitor), and routes of other protocols left alone.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { basename } from "node:path";
import { processMatches, writeCompanionRecord } from "@routerd/daemon-kit";
import { listBgpPeers, listBgpRoutes } from "@routerd/bgp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../lib/serve.js";
import { BgpLab, IX, ISP, ISP6, LAN, LAN6 } from "./topology.js";

let lab: BgpLab;

const CONFIG = {
  router: {
    name: "edge",
    spec: {
      asn: 65001,
      routerID: "10.91.0.1",
      communities: { set: { in: ["65001:100"] } },
      redistribute: { connected: { allowedPrefixes: [LAN, LAN6] } },
      timers: { profile: "fast" },
    },
  },
  peers: [
    {
      name: "isp",
      spec: {
        routerRef: "edge",
        peerASN: 65002,
        peers: [ISP],
        importPolicy: { allowedPrefixes: ["172.31.0.0/16"], allowedPrefixLengthMax: 24, forbiddenCommunities: ["65002:666"] },
      },
    },
    { name: "isp-v6", spec: { routerRef: "edge", peerASN: 65002, peers: [ISP6], importPolicy: { allowedPrefixes: ["2001:db8::/32"] } } },
    { name: "ix", spec: { routerRef: "edge", peerASN: 65003, peers: [IX] } },
  ],
};

// Short, so the last test sees an orphaned (kept) gobgpd stop; long enough for a restart to re-attach under load.
const ORPHAN_GRACE_S = 15;
const ORPHAN_GRACE = ["--orphan-grace", `${ORPHAN_GRACE_S}s`];

const has = (lines: string[], prefix: string) => lines.find((l) => l.startsWith(`${prefix} `));

/** Live gobgpds on this routerd-bgp's API socket in the router namespace (not their keepers; zombies have no cmdline). */
const ourGobgpds = () => lab.pidsIn(lab.router).filter((pid) => processMatches(pid, lab.gobgpdSocket) && program(pid) === "gobgpd");
function program(pid: number): string {
  try {
    return basename(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0]!);
  } catch {
    return "";
  }
}

const FOREIGN = "foreign-gobgpd.sock";
function startForeignGobgpd(): number {
  return lab.spawnIn(lab.router, ["gobgpd", `--api-hosts=unix://${lab.dir}/${FOREIGN}`, "--pprof-disable", "--log-level=warn"], "foreign-gobgpd.log").pid!;
}

/** Every neighbor Established and the FIB complete (both ECMP next hops). */
async function converged(): Promise<void> {
  await until("Established", async () => (await listBgpPeers(lab.socket).catch(() => undefined))?.peers.every((p) => p.state === "Established"), 30_000);
  // Learned again (not only routes retained from before): the RIB wants both next hops of the shared prefix.
  await until("RIB relearned", async () => {
    const routes = (await listBgpRoutes(lab.socket, "172.31.0.0/16").catch(() => ({ routes: [] }))).routes;
    const wanted = (p: string) => routes.find((r) => r.prefix === p)?.nextHops.length ?? 0;
    return wanted("172.31.1.0/24") === 1 && wanted("172.31.10.0/24") === 1 && wanted("172.31.9.0/24") === 2;
  }, 30_000);
  await until("FIB complete", () => has(lab.fib("-4"), "172.31.10.0/24") && lab.fib("-4").find((l) => l.startsWith("172.31.9.0/24"))?.includes("nexthop"), 30_000);
}

/** Runs `during` while sampling the FIB every 100 ms: the ISP route must never disappear. */
async function sampleFib(during: () => Promise<void>): Promise<void> {
  let missing = 0;
  let done = false;
  const sampler = (async () => {
    while (!done) {
      if (!has(lab.fib("-4"), "172.31.1.0/24")) missing++;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    await during();
  } finally {
    done = true;
    await sampler;
  }
  expect(missing).toBe(0);
}

beforeAll(async () => {
  lab = new BgpLab();
  await lab.startIsp();
  lab.startIx();
  // A route of another protocol in the same table: routerd-bgp must never touch it.
  lab.router.ip(`route add 172.31.200.0/24 via ${ISP} proto static`);
  lab.router.ip(`route add 172.31.201.0/24 via ${ISP} proto bird`);
  lab.startDaemon(lab.writeConfig(CONFIG), ORPHAN_GRACE);
}, 60_000);

afterAll(() => lab?.destroy());

describe("routerd-bgp with a gobgpd and a bird2 peer", () => {
  it("installs accepted best paths, IPv4 and IPv6, with ECMP over both peers", async () => {
    await until("routes in the FIB", () => {
      const v4 = lab.fib("-4");
      const ecmp = v4.find((l) => l.startsWith("172.31.9.0/24"));
      return has(v4, "172.31.1.0/24") && has(v4, "172.31.10.0/24") && ecmp?.includes("nexthop") && has(lab.fib("-6"), "2001:db8:91::/48");
    }, 60_000);
    const v4 = lab.router.ip("-4 route show proto 219").stdout;
    expect(v4).toMatch(/172\.31\.1\.0\/24 via 10\.91\.0\.2 dev bgi0 metric 20/);
    expect(v4).toMatch(/172\.31\.10\.0\/24 via 10\.92\.0\.2 dev bgx0 metric 20/);
    expect(v4).toMatch(/172\.31\.9\.0\/24 metric 20[\s\S]*nexthop via 10\.91\.0\.2[\s\S]*nexthop via 10\.92\.0\.2/);
    expect(lab.router.ip("-6 route show proto 219").stdout).toMatch(/2001:db8:91::\/48 via fd91::2 dev bgi0 metric 20/);
  });

  it("rejects what the import policy forbids: a community, a prefix longer than allowed", async () => {
    const v4 = lab.fib("-4");
    expect(has(v4, "172.31.2.0/24")).toBeUndefined();
    expect(has(v4, "172.31.3.128/25")).toBeUndefined();
    const routes = await listBgpRoutes(lab.socket, "172.31.0.0/16");
    expect(routes.routes.map((r) => r.prefix)).not.toContain("172.31.2.0/24");
    expect(routes.routes.map((r) => r.prefix)).not.toContain("172.31.3.128/25");
  });

  it("sets the import communities and reports installed next hops", async () => {
    const [route] = (await listBgpRoutes(lab.socket, "172.31.1.0/24")).routes;
    expect(route).toMatchObject({ prefix: "172.31.1.0/24", installedNextHops: [ISP], neighbor: ISP, asPath: [65002] });
    expect(route!.communities).toContain("65001:100");
    const v6 = (await listBgpRoutes(lab.socket, "2001:db8:91::/48")).routes[0];
    expect(v6?.installedNextHops).toEqual([ISP6]);
  });

  it("advertises its redistributed connected prefix to both peers", async () => {
    await until("the ISP learns the LAN", () => lab.ispCli("global", "rib", "-a", "ipv4", LAN).includes(LAN), 30_000);
    await until("the IX learns the LAN", () => lab.birdCli("show", "route", "for", "192.168.77.1").includes(LAN), 30_000);
  });

  it("advertises its redistributed connected IPv6 prefix (IPv6 connected routes have no scope link)", async () => {
    await until("the ISP learns the IPv6 LAN", () => lab.ispCli("global", "rib", "-a", "ipv6", LAN6).includes(LAN6), 30_000);
  });

  it("reports every neighbor Established with prefix counts", async () => {
    const res = await until(
      "counts",
      async () => {
        const r = await listBgpPeers(lab.socket);
        return r.peers.every((p) => p.state === "Established") && r.peers.find((p) => p.address === ISP)!.receivedPrefixes === 4 ? r : undefined;
      },
      20_000,
    );
    expect(res.peers.map((p) => [p.address, p.peer, p.state])).toEqual([
      ["10.91.0.2", "isp", "Established"],
      ["10.92.0.2", "ix", "Established"],
      ["fd91::2", "isp-v6", "Established"],
    ]);
    // GoBGP counts what entered its Adj-RIB-In; our import policy (a global one) filters after that.
    const isp = res.peers.find((p) => p.address === ISP)!;
    expect(isp.acceptedPrefixes).toBeGreaterThanOrEqual(2);
    expect(res.peers.find((p) => p.address === IX)!.receivedPrefixes).toBe(2);
    expect(isp.advertisedPrefixes).toBeGreaterThanOrEqual(1);
  });

  it("withdraws what a peer announced when its session goes down", async () => {
    lab.ix.exec("birdc", ["-s", `${lab.dir}/bird.ctl`, "disable", "edge"]);
    await until("IX routes withdrawn", () => !has(lab.fib("-4"), "172.31.10.0/24") && !lab.fib("-4").find((l) => l.startsWith("172.31.9.0/24"))?.includes("nexthop"), 20_000);
    expect(lab.router.ip("-4 route show 172.31.9.0/24 proto 219").stdout).toMatch(/via 10\.91\.0\.2/);
    lab.ix.exec("birdc", ["-s", `${lab.dir}/bird.ctl`, "enable", "edge"]);
    await until("IX routes back", () => has(lab.fib("-4"), "172.31.10.0/24"), 30_000);
  });

  it("keeps the FIB while its gobgpd is killed and restarted, then converges again", async () => {
    const before = lab.companionPid("gobgpd")!;
    const routes = lab.fib("-4").length;
    process.kill(before, "SIGKILL");
    let missing = 0;
    let restarted = false;
    const deadline = Date.now() + 40_000;
    // Sample the FIB all through the restart: the ISP route must never disappear.
    while (Date.now() < deadline) {
      if (!has(lab.fib("-4"), "172.31.1.0/24")) missing++;
      const now = lab.companionPid("gobgpd");
      if (now !== undefined && now !== before) restarted = true;
      if (restarted && (await listBgpPeers(lab.socket).catch(() => ({ peers: [] }))).peers.every((p) => p.state === "Established")) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(restarted).toBe(true);
    expect(missing).toBe(0);
    await until("FIB complete again", () => lab.fib("-4").length === routes && lab.fib("-4").find((l) => l.startsWith("172.31.9.0/24"))?.includes("nexthop"), 30_000);
  });

  it("dies with routerd-bgp: SIGKILL takes gobgpd along; the restarted one starts one new gobgpd, the FIB kept meanwhile, a foreign gobgpd untouched", async () => {
    const gobgpd = lab.companionPid("gobgpd")!;
    expect(ourGobgpds()).toEqual([gobgpd]);
    // Another gobgpd in the same namespace, and a record naming it (as a reused pid would): never ours to stop.
    const foreign = startForeignGobgpd();
    await sampleFib(async () => {
      lab.daemon!.kill("SIGKILL");
      await until("gobgpd died with routerd-bgp", () => !processMatches(gobgpd, lab.gobgpdSocket), 3_000, 50);
      writeCompanionRecord(lab.companionRecord("gobgpd"), { pid: foreign, match: lab.gobgpdSocket });
      lab.startDaemon(`${lab.dir}/bgp.json`, ORPHAN_GRACE);
      await converged();
    });
    expect(processMatches(foreign, FOREIGN)).toBe(true);
    const now = ourGobgpds();
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(gobgpd);
    expect(lab.companionPid("gobgpd")).toBe(now[0]);
  });

  it("a stale gobgpd of its own instance (one left running without the parent-death signal) is stopped before a new one starts", async () => {
    lab.daemon!.kill("SIGKILL");
    await until("gobgpd died with routerd-bgp", () => ourGobgpds().length === 0, 3_000, 50);
    // What an older routerd-bgp (no setpriv) left behind: a gobgpd on this instance's socket and its record.
    // (The killed gobgpd's socket file is still there: gobgpd will not start on it.)
    rmSync(lab.gobgpdSocket, { force: true });
    const stale = lab.spawnIn(lab.router, ["gobgpd", `--api-hosts=unix://${lab.gobgpdSocket}`, "--pprof-disable", "--log-level=warn"], "stale-gobgpd.log").pid!;
    await until("stale gobgpd up", () => program(stale) === "gobgpd" && existsSync(lab.gobgpdSocket), 10_000, 50);
    writeCompanionRecord(lab.companionRecord("gobgpd"), { pid: stale, match: lab.gobgpdSocket });
    await sampleFib(async () => {
      lab.startDaemon(`${lab.dir}/bgp.json`, ORPHAN_GRACE);
      await converged();
    });
    expect(processMatches(stale, lab.gobgpdSocket)).toBe(false);
    expect(ourGobgpds()).toEqual([lab.companionPid("gobgpd")]);
    expect(readFileSync(`${lab.dir}/routerd-bgp.log`, "utf8")).toMatch(/stopping a stale gobgpd/);
  });

  it("with --keep-gobgpd: re-attaches to its running gobgpd after being killed, without any FIB change or session reset", async () => {
    lab.daemon!.kill("SIGKILL");
    await until("gobgpd died with routerd-bgp", () => ourGobgpds().length === 0, 3_000, 50);
    lab.startDaemon(`${lab.dir}/bgp.json`, [...ORPHAN_GRACE, "--keep-gobgpd"]);
    await converged();
    const gobgpd = lab.companionPid("gobgpd");
    const monitor = lab.spawnIn(lab.router, ["ip", "-o", "monitor", "route"], "monitor.log");
    await new Promise((r) => setTimeout(r, 300));
    lab.daemon!.kill("SIGKILL");
    await new Promise((r) => setTimeout(r, 300));
    expect(ourGobgpds()).toEqual([gobgpd]);
    lab.startDaemon(`${lab.dir}/bgp.json`, [...ORPHAN_GRACE, "--keep-gobgpd"]);
    await until("daemon answers", async () => (await listBgpPeers(lab.socket).catch(() => undefined))?.peers.every((p) => p.state === "Established"), 20_000);
    await new Promise((r) => setTimeout(r, 1500));
    monitor.kill();
    expect(lab.companionPid("gobgpd")).toBe(gobgpd);
    const changes = readFileSync(`${lab.dir}/monitor.log`, "utf8").split("\n").filter((l) => l.includes("proto 219") || l.includes("172.31."));
    expect(changes).toEqual([]);
    expect((await listBgpPeers(lab.socket)).peers.every((p) => p.flaps === 0)).toBe(true);
  });

  it("with --keep-gobgpd: re-attached to a gobgpd that only just started, keeps the routes its RIB still lacks until relearned, then sweeps what nobody re-announced", async () => {
    // A prefix only the ISP announces, withdrawn while its sessions are held back: the sweep's to delete.
    const GONE = "172.31.4.0/24";
    lab.ispCli("global", "rib", "add", GONE, "nexthop", ISP, "-a", "ipv4");
    await until("the ISP-only prefix installed", () => has(lab.fib("-4"), GONE), 10_000);
    const monitor = lab.spawnIn(lab.router, ["ip", "-o", "monitor", "route"], "monitor-young.log");
    await new Promise((r) => setTimeout(r, 300));
    // The ISP's sessions (IPv4 and IPv6) cannot come back until lifted: the new gobgpd's RIB lacks their routes.
    const unblock = lab.blockBgp(lab.isp);
    try {
      const old = lab.companionPid("gobgpd")!;
      process.kill(old, "SIGKILL");
      await until("a fresh gobgpd", () => {
        const pid = lab.companionPid("gobgpd");
        return pid !== undefined && pid !== old && processMatches(pid, lab.gobgpdSocket);
      }, 10_000, 20);
      // routerd-bgp goes too, at once; the next one re-attaches to that young gobgpd.
      lab.daemon!.kill("SIGKILL");
      const fresh = lab.companionPid("gobgpd");
      lab.startDaemon(`${lab.dir}/bgp.json`, [...ORPHAN_GRACE, "--keep-gobgpd"]);
      await until("re-attached", () => /re-attached: routes the RIB lacks kept/.test(readFileSync(`${lab.dir}/routerd-bgp.log`, "utf8")), 20_000);
      expect(lab.companionPid("gobgpd")).toBe(fresh);
      // Held back for a while: the ISP's routes stay in the kernel although nobody announces them now.
      await new Promise((r) => setTimeout(r, 4000));
      const peers = (await listBgpPeers(lab.socket)).peers;
      expect(peers.find((p) => p.address === ISP)?.state).not.toBe("Established");
      const v4 = lab.fib("-4");
      expect(has(v4, "172.31.1.0/24")).toBeDefined();
      expect(has(v4, GONE)).toBeDefined();
      expect(has(lab.fib("-6"), "2001:db8:91::/48")).toBeDefined();
      lab.ispCli("global", "rib", "del", GONE, "-a", "ipv4");
    } finally {
      unblock();
    }
    await converged();
    await until("IPv6 relearned", async () => (await listBgpRoutes(lab.socket, "2001:db8:91::/48")).routes.length === 1, 30_000);
    await until("the prefix nobody re-announced swept", () => !has(lab.fib("-4"), GONE), 20_000);
    monitor.kill();
    const deleted = readFileSync(`${lab.dir}/monitor-young.log`, "utf8").split("\n").filter((l) => l.startsWith("Deleted"));
    // Nothing deleted but the swept prefix: the relearned routes were kept (or updated in place) all along.
    expect(deleted.map((l) => l.split(" ")[1])).toEqual([GONE]);
  });

  it("notices at once when someone else deletes or adds a route of its protocol, and puts the FIB right", async () => {
    lab.router.ip("route del 172.31.1.0/24 proto 219");
    lab.router.ip(`route add 172.31.77.0/24 via ${ISP} proto 219 metric 20`);
    await until("FIB put right", () => has(lab.fib("-4"), "172.31.1.0/24") && !has(lab.fib("-4"), "172.31.77.0/24"), 5_000, 50);
  });

  it("never touched the routes of other protocols in its table", () => {
    expect(lab.router.ip("route show 172.31.200.0/24").stdout).toMatch(/proto static/);
    expect(lab.router.ip("route show 172.31.201.0/24").stdout).toMatch(/proto bird/);
  });

  it("a withdrawn and re-announced prefix leaves and re-enters the FIB (the pre-policy stream, one UPDATE each)", async () => {
    lab.ispCli("global", "rib", "del", "172.31.1.0/24", "-a", "ipv4");
    await until("withdrawn", () => !has(lab.fib("-4"), "172.31.1.0/24"), 10_000, 20);
    lab.ispCli("global", "rib", "add", "172.31.1.0/24", "nexthop", ISP, "-a", "ipv4");
    await until("back", () => has(lab.fib("-4"), "172.31.1.0/24"), 10_000, 20);
  });

  it("a reloaded import policy re-chooses the FIB from the paths it holds, without a session reset", async () => {
    const flaps = async () => (await listBgpPeers(lab.socket)).peers.map((p) => p.flaps);
    const before = await flaps();
    const reload = (cfg: typeof CONFIG) => {
      lab.writeConfig(cfg);
      lab.daemon!.kill("SIGHUP");
    };
    const [isp, isp6, ix] = CONFIG.peers as [(typeof CONFIG.peers)[0], (typeof CONFIG.peers)[1], (typeof CONFIG.peers)[2]];
    // The IX's paths get a higher local preference: the shared prefix goes through the IX alone; the ISP's
    // forbidden community is lifted: its 172.31.2.0/24 (held pre-policy all along) is installed.
    reload({
      ...CONFIG,
      peers: [
        { ...isp, spec: { ...isp.spec, importPolicy: { ...isp.spec.importPolicy!, forbiddenCommunities: [] } } },
        isp6,
        { ...ix, spec: { ...ix.spec, importPolicy: { localPreference: 200 } } },
      ] as typeof CONFIG.peers,
    });
    await until(
      "re-chosen",
      () => {
        const v4 = lab.fib("-4");
        return has(v4, "172.31.2.0/24") && has(v4, "172.31.9.0/24")?.includes(`via ${IX}`) && !has(v4, "172.31.9.0/24")?.includes("nexthop");
      },
      20_000,
    );
    reload(CONFIG);
    await until("back to the original policy", () => !has(lab.fib("-4"), "172.31.2.0/24") && lab.fib("-4").find((l) => l.startsWith("172.31.9.0/24"))?.includes("nexthop"), 20_000);
    expect(await flaps()).toEqual(before);
  });

  it("with --keep-gobgpd: stops its gobgpd (and the keeper) once killed and not restarted within the orphan grace", async () => {
    const gobgpd = lab.companionPid("gobgpd")!;
    const keeper = lab.companionPid("gobgpd.keeper")!;
    // (A zombie has an empty cmdline: "not running" even before init reaps it.)
    const running = () => processMatches(gobgpd, "gobgpd") || processMatches(keeper, "routerd-keeper");
    expect(processMatches(gobgpd, "gobgpd") && processMatches(keeper, "routerd-keeper")).toBe(true);
    lab.daemon!.kill("SIGKILL");
    const killedAt = Date.now();
    await new Promise((r) => setTimeout(r, 3000));
    expect(processMatches(gobgpd, "gobgpd")).toBe(true); // within the grace a restarted routerd-bgp would re-attach
    await until("orphaned gobgpd stopped", () => !running(), ORPHAN_GRACE_S * 1000 + 15_000, 100);
    const after = Date.now() - killedAt;
    expect(after).toBeGreaterThanOrEqual(ORPHAN_GRACE_S * 1000);
  });
});
