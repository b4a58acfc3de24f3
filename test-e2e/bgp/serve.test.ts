// BGPRouter and BGPPeer under `routerd serve`: one routerd-bgp per BGPRouter, routerctl bgp peers|routes,
// a peer added without resetting the others, and the removal of the router: its daemon and gobgpd stop and
// exactly the routes of routerd's protocol in its table go (routes of other protocols stay).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killAll } from "../lib/daemons.js";
import { sh } from "../lib/netns.js";
import { routerctl, startServe, until, type ServeProcess } from "../lib/serve.js";
import { BgpLab, ISP, ISP6 } from "./topology.js";

let lab: BgpLab;
let serve: ServeProcess;
const config = () => join(lab.dir, "router.yaml");
const dirs = () => ({ stateDir: join(lab.dir, "state"), runDir: join(lab.dir, "run"), root: join(lab.dir, "root") });

function writeRouter(resources: { kind: string; name: string; spec: Record<string, unknown> }[]): void {
  const doc = {
    apiVersion: "routerd.net/v1alpha1",
    kind: "Router",
    metadata: { name: "bgp-e2e" },
    spec: {
      resources: [
        // Something that stays when the BGP resources go (an empty config would refuse to clean up).
        { apiVersion: "system.routerd.net/v1alpha1", kind: "Sysctl", metadata: { name: "forwarding" }, spec: { key: "net.ipv4.ip_forward", value: "1" } },
        ...resources.map((r) => ({ apiVersion: "net.routerd.net/v1alpha1", kind: r.kind, metadata: { name: r.name }, spec: r.spec })),
      ],
    },
  };
  writeFileSync(config(), JSON.stringify(doc, null, 2));
}

const ROUTER = { kind: "BGPRouter", name: "edge", spec: { asn: 65001, routerID: "10.91.0.1", timers: { profile: "fast" } } };
const ISP_PEER = { kind: "BGPPeer", name: "isp", spec: { routerRef: "edge", peerASN: 65002, peers: [ISP] } };
const ISP6_PEER = { kind: "BGPPeer", name: "isp-v6", spec: { routerRef: "edge", peerASN: 65002, peers: [ISP6] } };

type Peers = { address: string; state: string; flaps: number; uptimeSeconds: number }[];
const peers = () => routerctl(lab.router, ["bgp", "peers"], dirs().runDir).json as Peers | undefined;

/** routerd-bgp and gobgpd processes in the router namespace. */
function bgpProcesses(): string[] {
  const pids = sh("ip", ["netns", "pids", lab.router.name], { allowFail: true }).stdout.split("\n").filter(Boolean);
  return pids.filter((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      return argv[0]!.endsWith("gobgpd") || argv.some((a) => a.endsWith("/routerd-bgp.js"));
    } catch {
      return false;
    }
  });
}

beforeAll(async () => {
  lab = new BgpLab();
  await lab.startIsp();
  lab.router.ip(`route add 172.31.200.0/24 via ${ISP} proto static`);
  lab.router.ip(`route add 172.31.201.0/24 via ${ISP} proto bird`);
  writeRouter([ROUTER, ISP_PEER]);
  serve = startServe(lab.router, { config: config(), ...dirs() });
}, 60_000);

afterAll(async () => {
  await serve?.stop("SIGKILL");
  if (lab) {
    await killAll(dirs().runDir);
    lab.destroy();
  }
});

describe("BGP under routerd serve", () => {
  it("runs one routerd-bgp for the BGPRouter; routerctl shows its neighbors and routes", async () => {
    await until("routerd-bgp and gobgpd running", () => bgpProcesses().length === 2, 60_000, 300);
    await until("session Established", () => peers()?.[0]?.state === "Established", 60_000, 300);
    await until("route in the FIB", () => lab.fib("-4").some((l) => l.startsWith("172.31.1.0/24 ")), 20_000);
    const routes = routerctl(lab.router, ["bgp", "routes", "--prefix", "172.31.1.0/24"], dirs().runDir).json as { routes: { prefix: string; installedNextHops: string[] }[] };
    expect(routes.routes).toEqual([expect.objectContaining({ prefix: "172.31.1.0/24", installedNextHops: [ISP] })]);
    // routerd itself publishes the BGP resources' status (read from routerd-bgp) for *From and when.state.
    type Status = { resources: { name: string; details?: Record<string, unknown> }[] };
    const published = (name: string) => (routerctl(lab.router, ["status", "--json"], dirs().runDir).json as Status | undefined)?.resources.find((r) => r.name === name)?.details;
    await until("BGPPeer/isp published by routerd", () => published("BGPPeer/isp")?.state === "Established", 30_000, 500);
    expect(published("BGPPeer/isp")).toMatchObject({ address: ISP, state: "Established" });
    expect(published("BGPRouter/edge")).toMatchObject({ establishedPeers: 1 });
    const text = routerctl(lab.router, ["bgp", "peers"], dirs().runDir);
    expect(text.code).toBe(0);
    const ledger = readFileSync(join(dirs().stateDir, "artifacts.json"), "utf8");
    expect(ledger).toContain("proto=219,table=254");
    expect(readFileSync(join(dirs().root, "etc/iproute2/rt_protos.d/routerd.conf"), "utf8")).toMatch(/^219\trouterd-bgp$/m);
  });

  it("adds a peer without resetting the session that was already up", async () => {
    const before = peers()!.find((p) => p.address === ISP)!;
    writeRouter([ROUTER, ISP_PEER, ISP6_PEER]);
    await until("the IPv6 session", () => peers()?.find((p) => p.address === ISP6)?.state === "Established", 60_000, 300);
    await until("the IPv6 route", () => lab.fib("-6").some((l) => l.startsWith("2001:db8:91::/48 ")), 20_000);
    const after = peers()!.find((p) => p.address === ISP)!;
    expect(after.state).toBe("Established");
    expect(after.flaps).toBe(0);
    expect(after.uptimeSeconds).toBeGreaterThanOrEqual(before.uptimeSeconds);
  });

  it("removing the BGPRouter stops its daemons and deletes exactly routerd's routes in its table", async () => {
    // A routerd-bgp that cannot stop its gobgpd itself (frozen: serve kills it after its stop grace): serve
    // stops the gobgpd it recorded, long before the keeper's 60 s orphan grace would.
    const daemon = bgpProcesses().find((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("routerd-bgp.js"))!;
    process.kill(Number(daemon), "SIGSTOP");
    const removedAt = Date.now();
    writeRouter([]);
    await until("routerd-bgp and its gobgpd stopped", () => bgpProcesses().length === 0, 30_000, 300);
    expect(Date.now() - removedAt).toBeLessThan(40_000);
    await until("routerd's routes flushed", () => lab.fib("-4").length === 0 && lab.fib("-6").length === 0, 30_000, 300);
    expect(lab.router.ip("route show 172.31.200.0/24").stdout).toMatch(/proto static/);
    expect(lab.router.ip("route show 172.31.201.0/24").stdout).toMatch(/proto bird/);
    await until("the ledger forgot the route protocol", () => !readFileSync(join(dirs().stateDir, "artifacts.json"), "utf8").includes("proto=219"), 20_000, 300);
  });
});
