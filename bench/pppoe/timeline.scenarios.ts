// Where the time goes from `routerd serve`'s start to the PPPoE session, its default route and the LAN's
// NATed traffic, inside the full-kernel lab VM (`node bench/pppoe/run.mjs --timeline`): one time line from
//   - ROUTERD_TRACE=1 stages of serve and of routerd-pppoe-client (each names its start time, so both go
//     on the same clock): config parsed, each reconcile stage, daemon spawned, pppd spawned, pppd's lines,
//     the ip-up hook's report, serve's wake-up on the session event,
//   - `ip monitor` in the router's namespace (ppp0 appearing, its address, the default route),
//   - the hook's own log (how long that Node process took),
// and, for scale, what single program starts cost in this VM (node -e 0, the launchers, gRPC, ip, nft).
// Every figure is one line of JSON (run.mjs prints medians); the time line is plain lines in the log.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, ROUTERD } from "../../test-e2e/lib/netns.js";
import { until } from "../../test-e2e/lib/serve.js";
import { PPPOE_CLIENT } from "../../test-e2e/kernel/lib/pppoe-client.js";
import { PppoeRouter } from "../../test-e2e/kernel/lib/pppoe-router.js";
import { defineScenarios, type ScenarioContext } from "../../test-e2e/kernel/lib/scenarios.js";

const ROUNDS = 3;
const WAIT = 300_000;

interface Mark {
  at: number;
  source: string;
  what: string;
}

/** `routerd trace:` lines of one process (its stderr) as epoch times. */
export function traceMarks(text: string, source: string): Mark[] {
  const out: Mark[] = [];
  let origin: number | undefined;
  for (const line of text.split("\n")) {
    const start = /routerd trace: \S+ pid \d+ started at epoch (\d+) ms/.exec(line);
    if (start) {
      origin = Number(start[1]);
      out.push({ at: origin, source, what: "process started" });
      continue;
    }
    const stage = /routerd trace:\s+(\d+) ms {2}(.+)$/.exec(line);
    if (stage && origin !== undefined) out.push({ at: origin + Number(stage[1]), source, what: stage[2]! });
  }
  return out;
}

/** The hook's log: "<ISO time> ip-up reported after N ms (uptime M ms)": when it ended, and when its Node started. */
function hookMarks(path: string): Mark[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .flatMap((line) => {
      const m = /^(\S+) (\S+) (.+) after \d+ ms \(uptime (\d+) ms\)/.exec(line);
      if (!m) return [];
      const end = Date.parse(m[1]!);
      return [
        { at: end - Number(m[4]), source: "hook", what: `${m[2]} hook process started` },
        { at: end, source: "hook", what: `${m[2]} ${m[3]}` },
      ];
    });
}

/** Wall time of one command, in ms. */
function timeOnce(argv: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: REPO, stdio: "ignore" });
  if (r.status !== 0) throw new Error(`${argv.join(" ")} exited ${r.status}`);
  return Math.round(performance.now() - t0);
}

function programStarts(ctx: ScenarioContext): void {
  const node = process.execPath;
  const programs: [string, string[]][] = [
    ["node -e 0", [node, "-e", "0"]],
    ["node: import @grpc/grpc-js", [node, "-e", "require('@grpc/grpc-js')"]],
    ["node: import pino", [node, "-e", "require('pino')"]],
    ["routerd version (launcher + bundle)", [node, ROUTERD, "version"]],
    ["routerd-pppoe-client --help (launcher + entry chunk)", [node, PPPOE_CLIENT, "--help"]],
    ["ip -j link", ["ip", "-j", "link"]],
    ["nft -j list ruleset", ["nft", "-j", "list", "ruleset"]],
    ["sh -c true", ["sh", "-c", "true"]],
  ];
  for (const [figure, argv] of programs) {
    timeOnce(argv); // the first run warms the page cache (the guest reads the tree over 9p)
    const samples = Array.from({ length: ROUNDS }, () => timeOnce(argv));
    ctx.log(JSON.stringify({ figure: `start: ${figure}`, samples }));
  }
}

/** `ip monitor` in the router's namespace: the time each line arrives. */
function monitor(r: PppoeRouter): { marks: Mark[]; stop(): void } {
  const child = r.lab.spawn(r.rtr, ["ip", "monitor", "link", "address", "route"]);
  const marks: Mark[] = [];
  let partial = "";
  child.stdout!.on("data", (b: Buffer) => {
    const at = Date.now();
    const lines = (partial + b.toString()).split("\n");
    partial = lines.pop()!;
    for (const l of lines) if (/ppp0|default/.test(l) && !l.startsWith(" ")) marks.push({ at, source: "ip monitor", what: l.trim().slice(0, 110) });
  });
  return { marks, stop: () => child.kill("SIGKILL") };
}

async function serveTimeline(ctx: ScenarioContext, round: number): Promise<{ up: number; route: number; lan: number }> {
  const r = new PppoeRouter();
  const mon = monitor(r);
  let t0 = 0;
  let lan: number | undefined;
  try {
    await new Promise((res) => setTimeout(res, 1500)); // ip's own start, before t0
    process.env.ROUTERD_TRACE = "1";
    t0 = Date.now();
    r.start(r.resources({ ipv6: false }));
    delete process.env.ROUTERD_TRACE;
    const seen = (re: RegExp) => mon.marks.find((m) => re.test(m.what))?.at;
    const up = await until("ppp0 has its address", () => seen(/ppp0\s+inet /), WAIT, 20);
    const route = await until("the default route via ppp0", () => seen(/default dev ppp0/), WAIT, 20);
    await until("the LAN reaches the ISP through NAT", () => r.lanReachesInternet(), WAIT, 0);
    lan = Date.now();
    return { up: up - t0, route: route - t0, lan: lan - t0 };
  } finally {
    // The time line, also when a step timed out (it shows how far the run got).
    const marks: Mark[] = [
      { at: t0, source: "bench", what: "spawn: ip netns exec rtr node routerd serve" },
      ...traceMarks((r.serve?.log ?? []).join(""), "serve"),
      ...traceMarks(readDaemonLog(r), "pppoe-client"),
      ...hookMarks(join(r.dirs.stateDir, "pppoe-client", "isp", "ppp", "hooks.log")),
      ...mon.marks,
      ...(lan !== undefined ? [{ at: lan, source: "bench", what: "LAN ping answered through NAT" }] : []),
    ].sort((a, b) => a.at - b.at);
    ctx.log(`--- round ${round}: time line from the spawn of routerd serve (ms)`);
    for (const m of marks) ctx.log(`${String(m.at - t0).padStart(7)}  ${m.source.padEnd(12)} ${m.what}`);
    if (lan === undefined) ctx.log(`routes: ${r.routes()}\nnot Ready: ${r.unready().join("\n")}\nserve log tail: ${(r.serve?.log ?? []).join("").slice(-3000)}`);
    mon.stop();
    await r.destroy();
  }
}

function readDaemonLog(r: PppoeRouter): string {
  const path = join(r.dirs.stateDir, "pppoe-client", "isp", "daemon.log");
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}

export default defineScenarios([
  {
    name: "program starts in the VM",
    timeoutMs: 1_200_000,
    run: (ctx) => programStarts(ctx),
  },
  {
    name: "routerd serve to PPPoE session up: time line",
    timeoutMs: 3_000_000,
    async run(ctx) {
      const figures = { up: [] as number[], route: [] as number[], lan: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        const f = await serveTimeline(ctx, round);
        figures.up.push(f.up);
        figures.route.push(f.route);
        figures.lan.push(f.lan);
      }
      ctx.log(JSON.stringify({ figure: "timeline: session up (routerd serve)", samples: figures.up }));
      ctx.log(JSON.stringify({ figure: "timeline: default route via ppp0", samples: figures.route }));
      ctx.log(JSON.stringify({ figure: "timeline: LAN traffic NATed", samples: figures.lan }));
    },
  },
]);
