// Multihop BFD (RFC 5883) between routerd-bgp's bfdd and a BGP speaker two hops away: the router namespace,
// the lab's ISP namespace as a plain router in the middle (forwarding, a route each way) and a far namespace
// behind it running gobgpd (eBGP multihop, TTL 2) and its own bfdd with a multihop session. The BGPPeer has
// ebgpMultihop: 2 and bfd, so routerd-bgp renders `peer FAR multihop local-address R`. The middle router's
// link to the far side goes down (the router's own link stays up, so only BFD notices quickly): BFD Down
// within multiplier × interval, the neighbor disabled and its routes out of the FIB; the link up again brings
// BFD Up and the routes back.
import { listBgpPeers } from "@routerd/bgp";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Netns } from "../lib/netns.js";
import { until } from "../lib/serve.js";
import { bfdStatus, measureCut } from "./bfd-lib.js";
import { BgpLab, ISP, R_ISP } from "./topology.js";

const INTERVAL_MS = 100;
const MULTIPLIER = 3;
const MID_FAR = "10.95.0.1";
const FAR = "10.95.0.2";
const FAR_PREFIX = "172.31.5.0/24";

let lab: BgpLab;
let far: Netns;

const config = {
  router: { name: "edge", spec: { asn: 65001, routerID: R_ISP, timers: { profile: "fast" } } },
  peers: [{ name: "far", spec: { routerRef: "edge", peerASN: 65002, peers: [FAR], ebgpMultihop: 2, bfd: "far-bfd" } }],
  bfd: [{ name: "far-bfd", spec: { peer: FAR, profile: "fast" } }],
};

const status = () => bfdStatus(lab.socket, "far-bfd");

const farRoute = () => lab.fib("-4").some((l) => l.startsWith(`${FAR_PREFIX} `));

/** The far speaker: gobgpd from a config file (eBGP multihop to the router) announcing one prefix. */
async function startFarGobgpd(): Promise<void> {
  const dir = join(lab.dir, "far");
  mkdirSync(dir, { recursive: true });
  const conf = join(dir, "gobgpd.toml");
  writeFileSync(
    conf,
    `[global.config]\n  as = 65002\n  router-id = "${FAR}"\n[[neighbors]]\n  [neighbors.config]\n    neighbor-address = "${R_ISP}"\n    peer-as = 65001\n  [neighbors.ebgp-multihop.config]\n    enabled = true\n    multihop-ttl = 2\n`,
  );
  const sock = join(dir, "gobgpd.sock");
  lab.spawnIn(far, ["gobgpd", "-f", conf, `--api-hosts=unix://${sock}`, "--pprof-disable", "--log-level=warn"], "far-gobgpd.log");
  const cli = (...args: string[]) => far.exec("gobgp", ["--target", `unix://${sock}`, ...args], { allowFail: true });
  await until("far gobgpd up", () => cli("global").code === 0, 10_000, 100);
  // A third-party next hop the router reaches directly (GoBGP keeps a local path's explicit next hop on eBGP).
  cli("global", "rib", "add", FAR_PREFIX, "nexthop", ISP, "-a", "ipv4");
}

beforeAll(async () => {
  lab = new BgpLab();
  far = Netns.create("rbf");
  lab.extra.push(far);
  lab.isp.veth("bgf0", "bgf1", far);
  lab.isp.ip(`addr add ${MID_FAR}/24 dev bgf0`);
  lab.isp.ip("link set bgf0 up");
  far.ip(`addr add ${FAR}/24 dev bgf1`);
  far.ip("link set bgf1 up");
  lab.isp.exec("sysctl", ["-qw", "net.ipv4.ip_forward=1"]);
  lab.router.ip(`route add ${FAR}/32 via ${ISP}`);
  far.ip(`route add ${R_ISP}/32 via ${MID_FAR}`);
  await startFarGobgpd();
  lab.startBfdd(far, join(lab.dir, "far-bfdd"), { peer: R_ISP, local: FAR, intervalMs: INTERVAL_MS, multiplier: MULTIPLIER, multihop: true });
  lab.startDaemon(lab.writeConfig(config), ["--orphan-grace", "5s"]);
}, 60_000);

afterAll(() => lab?.destroy());

describe("multihop BFD to a BGP neighbor two hops away", () => {
  it("renders a multihop session and brings it Up; BGP over two hops fills the FIB", async () => {
    // Two hops really: the far side is not on a connected subnet of the router.
    expect(lab.router.ip(`-j route get ${FAR}`).stdout).toContain(`"gateway":"${ISP}"`);
    await until("BFD up", async () => (await status().catch(() => undefined))?.phase === "Up", 60_000, 200);
    await until("BGP established and routes in the FIB", async () => (await listBgpPeers(lab.socket)).peers[0]?.state === "Established" && farRoute(), 60_000, 200);
    const s = (await status())!;
    expect(s.details.localAddress).toBe(R_ISP);
    expect(s.details.multihop).toBe(true);
    const conf = readFileSync(join(lab.stateDir, "bgp", "edge", "bfdd.conf"), "utf8");
    expect(conf).toContain(`peer ${FAR} multihop local-address ${R_ISP}`);
  });

  it("the middle router's far link down: BFD Down within multiplier × interval, the routes out of the FIB", async () => {
    const { detect, withdraw, routeGone, status: s } = await measureCut({
      cut: () => lab.isp.ip("link set bgf0 down"),
      routePresent: farRoute,
      status,
      label: `multihop BFD ${MULTIPLIER}×${INTERVAL_MS} ms`,
    });
    expect(routeGone, "route withdrawn").toBe(true);
    // bfdd declares Down ≤ multiplier × interval after the last packet; routerd-bgp hears it on the control socket.
    expect(detect).toBeLessThanOrEqual(MULTIPLIER * INTERVAL_MS + 200);
    expect(withdraw).toBeLessThanOrEqual(1000);
    expect(s.details.bgpDisabled).toBe(true);
    expect(s.details.downs).toBe(1);
  });

  it("the link up again: BFD Up, the neighbor re-enabled, the routes back", async () => {
    lab.isp.ip("link set bgf0 up");
    await until("BFD up again", async () => (await status())?.phase === "Up", 20_000, 100);
    await until("routes back", () => farRoute(), 60_000, 200);
    expect((await status())!.details.bgpDisabled).toBe(false);
  });
});
