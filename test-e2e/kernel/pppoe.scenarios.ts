// PPPoESession under routerd serve against a real pppoe-server: the session brings the default route, DNS
// and NAT over ppp0; an ISP hang-up is redialled; removing the session stops pppd and removes its files.
// (Wrong password → AuthFailed with back-off is tested at the daemon level in pppoe-daemon.scenarios.ts.
// The serve-level auth-failed and DHCPv6-PD-over-PPPoE scenarios were not green yet: see issue 12's note.)
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { res } from "../lib/config.js";
import { sh } from "../lib/lab.js";
import { REPO } from "../lib/netns.js";
import { until } from "../lib/serve.js";
import { PppoeRouter } from "./lib/pppoe-router.js";
import { defineScenarios } from "./lib/scenarios.js";

// Generous: a loaded machine emulating the VM runs it many times slower than CI does.
const WAIT = 600_000;

async function withRouter(ctx: { log(l: string): void }, fn: (r: PppoeRouter) => Promise<void>, isp = {}): Promise<void> {
  const r = new PppoeRouter(isp);
  try {
    await fn(r);
  } finally {
    ctx.log(`--- routerd serve:\n${r.serveLog()}`);
    ctx.log(`--- ISP pppd log:\n${r.server.log().slice(-3000)}`);
    await r.destroy();
  }
}

export default defineScenarios([
  {
    name: "routerd serve brings the session up: default route and DNS from the session, the LAN NATed over ppp0; an ISP hang-up is redialled; removing the session stops pppd and removes its files",
    timeoutMs: 1_500_000,
    async run(ctx) {
      await withRouter(ctx, async (r) => {
        r.start(r.resources());
        await until("default route via ppp0 and the ISP's DNS", () => /default dev ppp0/.test(r.routes()) && r.resolvConf().includes("nameserver 192.0.2.53"), WAIT, 250);
        const first = await until("the session's status", () => r.session(), WAIT, 500);
        ctx.log(`session: ${JSON.stringify(first)}`);
        assert.equal(first.phase, "Up");
        assert.match(sh(["ip", "netns", "exec", r.rtr, "nft", "list", "table", "ip", "routerd_nat"]), /oifname "ppp0" ip saddr 192\.168\.1\.0\/24 masquerade/);
        await until("the LAN reaches the ISP through NAT", () => r.lanReachesInternet(), WAIT, 500);

        const hungUp = Date.now();
        assert.equal(r.server.hangUpAll(), 1);
        await until("a new session with the route back", async () => {
          const s = await r.session();
          return s?.phase === "Up" && s.details.pppdPid !== first.details.pppdPid && /default dev ppp0/.test(r.routes()) ? s : undefined;
        }, WAIT, 250);
        ctx.log(`redialled and routed ${Date.now() - hungUp} ms after the ISP hung up`);
        await until("the LAN reaches the ISP again", () => r.lanReachesInternet(), WAIT, 500);

        const pppdPid = Number((await until("the session's status", () => r.session(), WAIT, 500)).details.pppdPid);
        const stateDir = join(r.dirs.stateDir, "pppoe-client", "isp");
        assert.ok(existsSync(join(stateDir, "ppp", "chap-secrets")));
        r.writeConfig(r.resources().filter((x) => x.kind !== "PPPoESession" && x.kind !== "NAT44Rule"));
        await until("pppd stopped", () => {
          try {
            process.kill(pppdPid, 0);
            return false;
          } catch {
            return true;
          }
        }, WAIT, 250);
        await until("the daemon's files, route and DNS block removed", () => !existsSync(stateDir) && !/default/.test(r.routes()) && !r.resolvConf().includes("192.0.2.53"), WAIT, 250);
        assert.doesNotMatch(sh(["ip", "-n", r.rtr, "link"]), /ppp0/);
        assert.match(sh(["ip", "-n", r.rtr, "-4", "addr", "show", "dev", "lan0"]), /192\.168\.1\.1\/24/, "the rest of the router stays");
      });
    },
  },
]);
