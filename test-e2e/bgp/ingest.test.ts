// Both ingests of routerd-bgp, each chosen explicitly (ROUTERD_BGP_INGEST), against the same real peers
// (a gobgpd ISP with IPv4 and IPv6 sessions, a bird2 IX): the FIB with ECMP and IPv6, a session lost →
// its routes withdrawn, a re-attach (--keep-gobgpd) without any FIB change. BMP also: the station is on
// loopback and registered once in gobgpd; a broken BMP connection is taken up again without a FIB change;
// a local process that connects to the station is refused (its "routes" never reach the FIB).
import { readFileSync } from "node:fs";
import { listBgpPeers } from "@routerd/bgp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../lib/serve.js";
import { BgpLab, ISP, ISP6, IX } from "./topology.js";

const CONFIG = {
  router: { name: "edge", spec: { asn: 65001, routerID: "10.91.0.1", timers: { profile: "fast" } } },
  peers: [
    { name: "isp", spec: { routerRef: "edge", peerASN: 65002, peers: [ISP], importPolicy: { allowedPrefixLengthMax: 24 } } },
    { name: "isp-v6", spec: { routerRef: "edge", peerASN: 65002, peers: [ISP6] } },
    { name: "ix", spec: { routerRef: "edge", peerASN: 65003, peers: [IX] } },
  ],
};

const has = (lines: string[], prefix: string) => lines.find((l) => l.startsWith(`${prefix} `));

describe.each(["bmp", "watch"] as const)("routerd-bgp with ROUTERD_BGP_INGEST=%s", (ingest) => {
  let lab: BgpLab;
  const env = { ROUTERD_BGP_INGEST: ingest };
  const log = () => readFileSync(`${lab.dir}/routerd-bgp.log`, "utf8");
  /** The BMP stations routerd-bgp's gobgpd sends to ("127.0.0.1:port" each). */
  const stations = () =>
    lab.router
      .exec("gobgp", ["--target", `unix://${lab.gobgpdSocket}`, "bmp"])
      .stdout.split("\n")
      .map((l) => l.split(/\s+/)[0]!)
      .filter((s) => /:\d+$/.test(s));
  const complete = () => {
    const v4 = lab.fib("-4");
    return has(v4, "172.31.1.0/24") && has(v4, "172.31.10.0/24") && v4.find((l) => l.startsWith("172.31.9.0/24"))?.includes("nexthop") && has(lab.fib("-6"), "2001:db8:91::/48");
  };
  /** Runs `during` with `ip monitor` on the router's routes: what changed in the FIB meanwhile. */
  async function fibChanges(name: string, during: () => Promise<void>): Promise<string[]> {
    const monitor = lab.spawnIn(lab.router, ["ip", "-o", "monitor", "route"], name);
    await new Promise((r) => setTimeout(r, 300));
    await during();
    await new Promise((r) => setTimeout(r, 1500));
    monitor.kill();
    return readFileSync(`${lab.dir}/${name}`, "utf8").split("\n").filter((l) => l.includes("proto 219") || l.includes("172.31."));
  }

  beforeAll(async () => {
    lab = new BgpLab();
    await lab.startIsp();
    lab.startIx();
    lab.startDaemon(lab.writeConfig(CONFIG), ["--keep-gobgpd", "--orphan-grace", "15s"], env);
  }, 60_000);
  afterAll(() => lab?.destroy());

  it("installs IPv4, IPv6 and ECMP routes from the paths this ingest delivers", async () => {
    await until("routes in the FIB", complete, 60_000);
    expect(lab.router.ip("-4 route show proto 219").stdout).toMatch(/172\.31\.9\.0\/24 metric 20[\s\S]*nexthop via 10\.91\.0\.2[\s\S]*nexthop via 10\.92\.0\.2/);
    expect(has(lab.fib("-4"), "172.31.3.128/25")).toBeUndefined(); // the import policy, applied by routerd-bgp
    if (ingest === "bmp") {
      expect(log()).toMatch(/BMP station registered/);
      expect(stations()).toEqual([expect.stringMatching(/^127\.0\.0\.1:\d+$/)]);
    } else {
      expect(log()).not.toMatch(/BMP station/);
      expect(stations()).toEqual([]);
    }
  });

  it("withdraws a neighbor's routes when its session goes down, and installs them again when it is back", async () => {
    lab.birdCli("disable", "edge");
    await until("IX routes withdrawn", () => !has(lab.fib("-4"), "172.31.10.0/24") && !lab.fib("-4").find((l) => l.startsWith("172.31.9.0/24"))?.includes("nexthop"), 20_000);
    expect(lab.router.ip("-4 route show 172.31.9.0/24 proto 219").stdout).toMatch(/via 10\.91\.0\.2/);
    lab.birdCli("enable", "edge");
    await until("IX routes back", complete, 30_000);
  });

  it("re-attaches to its running gobgpd (--keep-gobgpd) without any FIB change", async () => {
    const gobgpd = lab.companionPid("gobgpd");
    const changes = await fibChanges("monitor-reattach.log", async () => {
      lab.daemon!.kill("SIGKILL");
      await new Promise((r) => setTimeout(r, 300));
      lab.startDaemon(`${lab.dir}/bgp.json`, ["--keep-gobgpd", "--orphan-grace", "15s"], env);
      await until("daemon answers", async () => (await listBgpPeers(lab.socket).catch(() => undefined))?.peers.every((p) => p.state === "Established"), 20_000);
      await until("re-attached", () => /re-attached: routes the RIB lacks kept/.test(log()), 20_000);
    });
    expect(lab.companionPid("gobgpd")).toBe(gobgpd);
    expect(changes).toEqual([]);
    if (ingest === "bmp") expect(stations()).toHaveLength(1); // the killed one's station replaced, not added to
  });

  it.runIf(ingest === "bmp")("a broken BMP connection is taken up again (a new snapshot) without a FIB change", async () => {
    const [station] = stations();
    const changes = await fibChanges("monitor-bmp-break.log", async () => {
      // gobgpd closes the connection (a Termination): routerd-bgp subscribes again with a new station.
      lab.router.exec("gobgp", ["--target", `unix://${lab.gobgpdSocket}`, "bmp", "del", station!]);
      await until("a new station", () => stations().length === 1 && stations()[0] !== station, 20_000);
      await until("its snapshot read", () => (log().match(/BMP snapshot received/g) ?? []).length >= 2, 20_000);
    });
    expect(changes).toEqual([]);
    expect(complete()).toBeTruthy();
  });

  it.runIf(ingest === "bmp")("refuses a connection to the station from any process but its gobgpd", async () => {
    const port = Number(stations()[0]!.split(":")[1]);
    // A BMP Initiation from another local process: the station closes the connection at once.
    const closed = await new Promise<boolean>((resolve) => {
      const code = `const s=require("net").connect(${port},"127.0.0.1",()=>s.write(Buffer.from("030000000604","hex")));s.on("error",()=>undefined);s.on("close",()=>process.exit(0));setTimeout(()=>process.exit(3),5000);`;
      const child = lab.spawnIn(lab.router, [process.execPath, "-e", code], "intruder.log");
      child.on("exit", (c) => resolve(c === 0));
    });
    expect(closed).toBe(true);
    expect(log()).toMatch(/BMP connection not from our gobgpd/);
  });
});
