// PPPoESession under routerd serve against a real pppoe-server: the session brings the default route, DNS
// and NAT over ppp0; an ISP hang-up is redialled; a wrong password backs off; removing the session stops
// pppd and removes its files; DHCPv6 prefix delegation runs over the session with kea at the ISP.
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Kea } from "../dhcpv6-client/support/kea.js";
import { res } from "../lib/config.js";
import { sh } from "../lib/lab.js";
import { until } from "../lib/serve.js";
import { PppoeRouter } from "./lib/pppoe-router.js";
import { defineScenarios } from "./lib/scenarios.js";

// Each awaited event: generous, since a loaded machine emulating the VM runs it many times slower than CI
// does (the whole PPPoE file takes minutes on a quiet machine, over twenty at load 20-30).
const WAIT = 300_000;

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
    timeoutMs: 900_000,
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
  {
    name: "a wrong password shows AuthFailed with back-off (no tight loop); the fixed password file brings the session up at the next dial",
    timeoutMs: 900_000,
    async run(ctx) {
      await withRouter(ctx, async (r) => {
        writeFileSync(r.passwordFile, "wrong\n");
        r.start(r.resources());
        const failed = await until("AuthFailed", async () => {
          const s = await r.session();
          return s?.phase === "AuthFailed" ? s : undefined;
        }, WAIT, 250);
        ctx.log(JSON.stringify(failed));
        // The daemon's own record of the back-off it chose: at least 10 s after a rejected password (±10 %).
        const event = r.daemonEvents().find((e) => e.topic === "pppoe.session.auth-failed");
        assert.ok(Number(event?.attributes.nextDialInMs) >= 9000, `back-off after AuthFailed: ${JSON.stringify(event)}`);
        // No dial before the back-off ends (a tight loop would dial again at once), and no route meanwhile.
        const dials = failed.details.totalDials;
        const nextDialAt = Date.parse(String(failed.details.nextDialAt));
        while (Date.now() < nextDialAt - 1000) {
          const now = await r.session();
          if (now) assert.equal(now.details.totalDials, dials, "no dial during the back-off");
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
        assert.doesNotMatch(r.routes(), /default/);

        writeFileSync(r.passwordFile, "wonderland\n");
        await until("Up at a later dial with the fixed password", async () => (await r.session())?.phase === "Up" && /default dev ppp0/.test(r.routes()), WAIT, 250);
      }, { auth: "pap" });
    },
  },
  {
    name: "DHCPv6 prefix delegation over the PPPoE session (kea at the ISP) numbers the LAN",
    timeoutMs: 900_000,
    async run(ctx) {
      await withRouter(ctx, async (r) => {
        r.start(
          r.resources({ ipv6: true }, [
            res("DHCPv6PrefixDelegation", "pd", { interface: "isp", prefixLength: 56 }),
            res("IPv6DelegatedAddress", "lan-v6", { prefixDelegation: "pd", interface: "lan", subnetID: 1 }),
          ]),
        );
        await until("the ISP's end of the session has its link-local address", () => /fe80::1/.test(sh(["ip", "-n", r.isp, "-6", "addr", "show", "dev", "ppp0"], { allowFail: true })), WAIT, 250);
        // pppd gives the ISP's ppp0 "fe80::1 peer fe80::2/128", and kea 2.2 takes a point-to-point address's
        // peer for its own (it binds to fe80::2 and serves nothing): the ISP's server gets a plain link-local.
        sh(["ip", "-n", r.isp, "-6", "addr", "del", "fe80::1", "peer", "fe80::2", "dev", "ppp0"]);
        sh(["ip", "-n", r.isp, "-6", "addr", "add", "fe80::1/64", "dev", "ppp0", "nodad"]);
        await until("the IPv6 default route via the ISP's link-local address", () => /default via fe80::1 dev ppp0/.test(sh(["ip", "-n", r.rtr, "-6", "route"], { allowFail: true })), WAIT, 250);
        const kea = new Kea(r.lab as never, r.isp, { subnets: [{ id: 1, iface: "ppp0", subnet: "2001:db8:ffff::/64", pdPrefix: "2001:db8:1000::", pdPrefixLen: 40, delegatedLen: 56 }], timers: { renew: 30, rebind: 45, preferred: 60, valid: 90 } });
        try {
          await kea.start(WAIT);
          const lan = await until("a /64 of the delegated prefix on the LAN", () => {
            const out = sh(["ip", "-n", r.rtr, "-6", "addr", "show", "dev", "lan0", "scope", "global"], { allowFail: true });
            return /inet6 2001:db8:10[0-9a-f]{2}:[0-9a-f]*1::1\/64/.test(out) ? out : undefined;
          }, WAIT, 500);
          ctx.log(lan);
          const leases = await kea.leases();
          assert.equal(leases.filter((l) => l.type === "IA_PD").length, 1);
        } finally {
          ctx.log(`--- kea:\n${kea.log.slice(-2000)}`);
          await kea.stop();
        }
      }, { ipv6: true });
    },
  },
]);
