// BFD with real bfdd on both sides: the router's routerd-bgp runs FRR bfdd (rendered config, control socket)
// next to its gobgpd; the ISP runs gobgpd and its own bfdd. Everything the ISP sends is dropped (an nftables
// output chain in its namespace; the link stays up, so only BFD can notice quickly): the session goes Down within
// multiplier × interval, routerd-bgp disables the BGP neighbor and the ISP's routes leave the FIB within 1 s
// of that; when packets flow again BFD comes Up, the neighbor is re-enabled and the routes come back.
import { connectDaemon } from "@routerd/rpc";
import { listBgpPeers } from "@routerd/bgp";
import { processMatches } from "@routerd/daemon-kit";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../lib/serve.js";
import { bfdStatus, measureCut } from "./bfd-lib.js";
import { BgpLab, ISP, R_ISP } from "./topology.js";

const INTERVAL_MS = 100;
const MULTIPLIER = 3;

let lab: BgpLab;

const config = (bfd: boolean) => ({
  router: { name: "edge", spec: { asn: 65001, routerID: R_ISP, timers: { profile: "fast" } } },
  peers: [{ name: "isp", spec: { routerRef: "edge", peerASN: 65002, peers: [ISP], ...(bfd ? { bfd: "isp-bfd" } : {}) } }],
  bfd: bfd ? [{ name: "isp-bfd", spec: { peer: ISP, profile: "fast" } }] : [],
});

const status = () => bfdStatus(lab.socket, "isp-bfd");

const ispRoute = () => lab.fib("-4").some((l) => l.startsWith("172.31.1.0/24 "));

beforeAll(async () => {
  lab = new BgpLab();
  await lab.startIsp();
  lab.startIspBfdd(INTERVAL_MS, MULTIPLIER);
  lab.startDaemon(lab.writeConfig(config(true)), ["--orphan-grace", "5s"]);
}, 60_000);

afterAll(() => lab?.destroy());

describe("BFD between routerd-bgp's bfdd and the ISP's bfdd", () => {
  it("brings the session Up from the rendered config and reports it per BFD and per neighbor", async () => {
    await until("BFD up", async () => (await status().catch(() => undefined))?.phase === "Up", 60_000, 200);
    await until("BGP established and routes in the FIB", async () => (await listBgpPeers(lab.socket)).peers[0]?.state === "Established" && ispRoute(), 60_000, 200);
    const s = (await status())!;
    expect(s.details.localAddress).toBe(R_ISP);
    const conf = readFileSync(join(lab.stateDir, "bgp", "edge", "bfdd.conf"), "utf8");
    expect(conf).toContain(`peer ${ISP} local-address ${R_ISP}`);
    const bfdd = lab.companionPid("bfdd")!;
    expect(processMatches(bfdd, "bfdd.sock")).toBe(true);
    const c = await connectDaemon(lab.socket, { connectTimeoutMs: 1000 });
    const peer = (await c.getStatus()).resources.find((x) => x.name === "isp")!;
    c.close();
    expect(JSON.parse(peer.detailsJson).neighbors[0].bfd).toBe("up");
  });

  it("a cut link: BFD Down within multiplier × interval, the ISP's routes out of the FIB within 1 s of it", async () => {
    const { detect, withdraw, routeGone, status: s } = await measureCut({
      cut: () => lab.isp.exec("nft", ["add table inet cut; add chain inet cut out { type filter hook output priority 0; policy drop; }"]),
      routePresent: ispRoute,
      status,
      label: `BFD ${MULTIPLIER}×${INTERVAL_MS} ms`,
    });
    expect(routeGone, "route withdrawn").toBe(true);
    // bfdd declares Down ≤ multiplier × interval after the last packet; routerd-bgp hears it on the control socket.
    expect(detect).toBeLessThanOrEqual(MULTIPLIER * INTERVAL_MS + 200);
    expect(withdraw).toBeLessThanOrEqual(1000);
    expect(s.details.bgpDisabled).toBe(true);
    expect(s.details.downs).toBe(1);
  });

  it("packets flowing again: BFD Up, the neighbor re-enabled, the routes back", async () => {
    lab.isp.exec("nft", ["delete table inet cut"]);
    await until("BFD up again", async () => (await status())?.phase === "Up", 20_000, 100);
    await until("routes back", () => ispRoute(), 60_000, 200);
    expect((await status())!.details.bgpDisabled).toBe(false);
  });

  it("removing the BFD (reload) stops bfdd and leaves the BGP session alone", async () => {
    const bfdd = lab.companionPid("bfdd")!;
    lab.writeConfig(config(false));
    process.kill(lab.daemon!.pid!, "SIGHUP"); // sh exec'd ip netns exec, which exec'd routerd-bgp: one pid
    await until("bfdd stopped, its config removed", () => !processMatches(bfdd, "bfdd.sock") && !existsSync(join(lab.stateDir, "bgp", "edge", "bfdd.conf")), 20_000, 100);
    expect((await listBgpPeers(lab.socket)).peers[0]?.state).toBe("Established");
    expect(ispRoute()).toBe(true);
  });
});
