// PPPoE benchmark, run inside the full-kernel lab VM (bench/pppoe/run.mjs boots it): how long until the
// session is up (ppp0 has its IPv4 address) with
//   - pppd started by hand with the very options and secrets routerd-pppoe-client writes (the baseline),
//   - routerd-pppoe-client started directly,
//   - routerd serve from its start (also: until its default route via ppp0, and until the LAN's ping is NATed
//     through), and how long a redial takes after the ISP hangs up: routerd-pppoe-client vs pppd's own
//     `persist` (pppd's default holdoff) and `persist holdoff 0`.
// Every figure is one line of JSON in the scenario's log; run.mjs prints the medians.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderOptions, renderSecrets } from "../../apps/routerd-pppoe-client/src/pppd/render.js";
import type { SessionConfig } from "../../apps/routerd-pppoe-client/src/config.js";
import { terminate, type Lab } from "../../test-e2e/lib/lab.js";
import { until } from "../../test-e2e/lib/serve.js";
import { PppoeClientDaemon } from "../../test-e2e/kernel/lib/pppoe-client.js";
import { PppoeRouter } from "../../test-e2e/kernel/lib/pppoe-router.js";
import { defineScenarios, type ScenarioContext } from "../../test-e2e/kernel/lib/scenarios.js";

const ROUNDS = 3;
const REDIALS = 3;
const WAIT = 300_000;
const SESSION: SessionConfig = {
  interface: "wan0",
  ifname: "ppp0",
  username: "alice",
  password: "wonderland",
  authMethod: "both",
  ipv6: false,
  usePeerDNS: true,
  lcpEchoInterval: 2,
  lcpEchoFailure: 3,
  persist: true,
};

/** `ip monitor` in a namespace: resolves with the time a new object's line matches ("Deleted ..." lines never do). */
async function watch(lab: Lab, ns: string, object: "address" | "route", pattern: RegExp): Promise<{ seen: Promise<number>; stop(): void }> {
  const child = lab.spawn(ns, ["ip", "monitor", object]);
  let partial = "";
  const seen = new Promise<number>((resolve) => {
    child.stdout!.on("data", (b: Buffer) => {
      const lines = (partial + b.toString()).split("\n");
      partial = lines.pop()!;
      if (lines.some((l) => !l.startsWith("Deleted") && pattern.test(l))) resolve(Date.now());
    });
  });
  // ip's own start under emulation (70-150 ms): the subject starts only once the monitor listens.
  await new Promise((r) => setTimeout(r, 1500));
  return { seen, stop: () => child.kill("SIGKILL") };
}

const PPP0_INET = /ppp0\s+inet /;

/** pppd with routerd-pppoe-client's options and secrets, by hand (no hooks), in its own /etc/ppp. */
function startPppd(r: PppoeRouter, extraOptions: string[], round: string) {
  const dir = r.lab.path(`by-hand-${round}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const options = renderOptions(SESSION, { instance: "bench", debug: false }).replace("nopersist\nmaxfail 1\n", "");
  writeFileSync(join(dir, "options"), options + extraOptions.join("\n") + "\n", { mode: 0o600 });
  for (const f of ["chap-secrets", "pap-secrets"]) writeFileSync(join(dir, f), renderSecrets(SESSION.username, SESSION.password!, "bench"), { mode: 0o600 });
  return r.lab.spawn(r.rtr, ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", 'mount --bind "$0" /etc/ppp && exec pppd nodetach', dir]);
}

async function ispIdle(r: PppoeRouter): Promise<void> {
  await until("the ISP has no session", () => r.server.sessionPids().length === 0, WAIT, 100);
}

async function sessionUpByHand(r: PppoeRouter, round: number): Promise<number> {
  const w = await watch(r.lab, r.rtr, "address", PPP0_INET);
  const t0 = Date.now();
  const pppd = startPppd(r, ["nopersist"], `up-${round}`);
  try {
    return (await w.seen) - t0;
  } finally {
    w.stop();
    await terminate(pppd, 10_000);
    await ispIdle(r);
  }
}

async function sessionUpDaemon(r: PppoeRouter, round: number): Promise<number> {
  const daemon = new PppoeClientDaemon(r.lab, r.rtr, `b${round}`);
  daemon.writeConfig({ ...SESSION });
  const w = await watch(r.lab, r.rtr, "address", PPP0_INET);
  const t0 = Date.now();
  daemon.start();
  try {
    return (await w.seen) - t0;
  } finally {
    w.stop();
    await terminate(daemon.child!, 15_000);
    await ispIdle(r);
  }
}

/** From `routerd serve`'s start: ppp0 up, routerd's default route via ppp0, the LAN's first NATed ping. */
async function sessionUpServe(r: PppoeRouter): Promise<{ up: number; defaultRoute: number; lanTraffic: number }> {
  const up = await watch(r.lab, r.rtr, "address", PPP0_INET);
  const route = await watch(r.lab, r.rtr, "route", /default dev ppp0/);
  const t0 = Date.now();
  r.start(r.resources({ ipv6: false }));
  try {
    const [a, b] = [await up.seen, await route.seen];
    // The first ping that gets through (1 s per unanswered try: the figure is accurate to about that).
    await until("the LAN reaches the ISP through NAT", () => r.lanReachesInternet(), WAIT, 0);
    return { up: a - t0, defaultRoute: b - t0, lanTraffic: Date.now() - t0 };
  } finally {
    up.stop();
    route.stop();
  }
}

/** After the ISP hangs up: until ppp0 has its address again. */
async function redialAfterHangUp(r: PppoeRouter): Promise<number> {
  await until("a session at the ISP", () => r.server.sessionPids().length === 1, WAIT, 100);
  // An address event of this session may still be on its way: let it settle before watching.
  await new Promise((res) => setTimeout(res, 1000));
  const w = await watch(r.lab, r.rtr, "address", PPP0_INET);
  const t0 = Date.now();
  r.server.hangUpAll();
  try {
    return (await w.seen) - t0;
  } finally {
    w.stop();
  }
}

async function redialByHand(r: PppoeRouter, holdoff: string[], label: string, ctx: ScenarioContext): Promise<void> {
  const pppd = startPppd(r, ["persist", ...holdoff], label);
  try {
    const samples: number[] = [];
    for (let i = 0; i < REDIALS; i++) samples.push(await redialAfterHangUp(r));
    ctx.log(JSON.stringify({ figure: `redial: pppd persist${holdoff.length ? ` ${holdoff.join(" ")}` : " (default holdoff)"}`, samples }));
  } finally {
    await terminate(pppd, 10_000);
    await ispIdle(r);
  }
}

export default defineScenarios([
  {
    name: "session up: pppd by hand vs routerd-pppoe-client vs routerd serve",
    timeoutMs: 3_000_000,
    async run(ctx) {
      const byHand: number[] = [];
      const daemon: number[] = [];
      const serve = { up: [] as number[], defaultRoute: [] as number[], lanTraffic: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        const r = new PppoeRouter();
        try {
          // Alternate the order, so neither side always runs on a warmer cache.
          const pair = [() => sessionUpByHand(r, round).then((ms) => byHand.push(ms)), () => sessionUpDaemon(r, round).then((ms) => daemon.push(ms))];
          for (const step of round % 2 ? pair.reverse() : pair) await step();
          const s = await sessionUpServe(r);
          for (const k of ["up", "defaultRoute", "lanTraffic"] as const) serve[k].push(s[k]);
        } finally {
          await r.destroy();
        }
      }
      ctx.log(JSON.stringify({ figure: "session up: pppd by hand", samples: byHand }));
      ctx.log(JSON.stringify({ figure: "session up: routerd-pppoe-client", samples: daemon }));
      ctx.log(JSON.stringify({ figure: "session up: routerd serve", samples: serve.up }));
      ctx.log(JSON.stringify({ figure: "default route via ppp0: routerd serve", samples: serve.defaultRoute }));
      ctx.log(JSON.stringify({ figure: "LAN traffic NATed over ppp0: routerd serve", samples: serve.lanTraffic }));
    },
  },
  {
    name: "redial after the ISP hangs up: routerd-pppoe-client vs pppd persist",
    timeoutMs: 3_000_000,
    async run(ctx) {
      const r = new PppoeRouter();
      try {
        const daemon = new PppoeClientDaemon(r.lab, r.rtr, "redial");
        daemon.writeConfig({ ...SESSION });
        daemon.start();
        try {
          const samples: number[] = [];
          for (let i = 0; i < REDIALS; i++) samples.push(await redialAfterHangUp(r));
          ctx.log(JSON.stringify({ figure: "redial: routerd-pppoe-client", samples }));
        } finally {
          await terminate(daemon.child!, 15_000);
          await ispIdle(r);
        }
        await redialByHand(r, [], "persist", ctx);
        await redialByHand(r, ["holdoff 0"], "holdoff0", ctx);
      } finally {
        await r.destroy();
      }
    },
  },
]);
