// The implementations under test, each started in the router namespace with one eBGP session to the peer
// and its FIB programming on: routerd-bgp (gobgpd + our FIB writer), bird2 (protocol kernel), FRR
// (bgpd + zebra); and "gobgpd alone" (gobgpd-alone.mjs: routerd-bgp's gobgpd without routerd-bgp). Each
// returns the pids to measure and a stop(); loaded(n) when "all N" is not the FIB's count (gobgpd alone);
// timeline() when its log splits its time (routerd-bgp).
import { spawn } from "node:child_process";
import { appendFileSync, openSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { programEnvironment } from "../../packages/daemon-kit/dist/v8-flags.js";
import { PROGRAM_ENVIRONMENT } from "../../packages/render/dist/units/programs.js";
import { gobgpdAlone } from "./gobgpd-alone.mjs";
import { PEER_AS, PEER_IP, ROUTER_AS, ROUTER_IP, sh, sleep } from "./lab.mjs";

const repo = new URL("../..", import.meta.url).pathname;

/** Starts argv in the router namespace (`ip netns exec` execs it: the pid is the program's); out: an fd for its output. */
function launch(lab, argv, out = "ignore", env = process.env) {
  const p = spawn("ip", ["netns", "exec", lab.r, ...argv], { stdio: ["ignore", out, out], env });
  lab.procs.push(p);
  return p;
}

async function pidFromFile(path, timeoutMs = 180_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      // A plain pid file, or routerd-bgp's companion record {"pid": N, "match": ...}.
      const text = readFileSync(path, "utf8").trim();
      const pid = text.startsWith("{") ? Number(JSON.parse(text).pid) : Number(text);
      if (pid > 0) return pid;
    } catch {}
    if (Date.now() > until) throw new Error(`no pid in ${path}`);
    await sleep(20);
  }
}

async function stopPid(pid) {
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await sleep(50);
  }
  try {
    process.kill(pid, "SIGKILL");
  } catch {}
}

/** routerd-bgp's config for the benchmarks: one router, one neighbor (the announcing peer). */
export const routerdBgpConfig = () =>
  JSON.stringify({
    router: { name: "bench", spec: { asn: ROUTER_AS, routerID: ROUTER_IP, listen: { port: 0 } } },
    peers: [{ name: "upstream", spec: { routerRef: "bench", peerASN: PEER_AS, peers: [PEER_IP] } }],
  });

/** The `ip` helpers a process runs, by role: {"ip -batch": pid, "ip monitor": pid}. */
function ipChildren(pid) {
  const out = {};
  let children = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
  } catch {}
  for (const c of children) {
    let argv = [];
    try {
      argv = readFileSync(`/proc/${c}/cmdline`, "utf8").split("\0");
    } catch {}
    if (argv[0] !== "ip") continue;
    if (argv.includes("-batch")) out["ip -batch"] = Number(c);
    else if (argv.includes("monitor")) out["ip monitor"] = Number(c);
  }
  return out;
}

/**
 * routerd-bgp's load from its debug log, in ms after Established (t0, like cutoff an epoch time in ms; lines
 * after cutoff — the flaps — are ignored): the first and the last Adj-RIB-In event, the last FIB chunk the
 * kernel confirmed, and which FIB writer it used.
 */
function loadTimeline(text, t0, cutoff) {
  const at = { firstEventMs: NaN, lastEventMs: NaN, lastChunkMs: NaN, events: 0, chunks: 0, writer: "?" };
  for (const line of text.split("\n")) {
    if (!line.startsWith("{")) continue;
    let rec;
    try {
      rec = JSON.parse(line);
    } catch {
      continue;
    }
    if (rec.time > cutoff) break;
    const ms = rec.time - t0;
    if (rec.msg === "Adj-RIB-In event") {
      if (at.events++ === 0) at.firstEventMs = ms;
      at.lastEventMs = ms;
    } else if (rec.msg?.startsWith("FIB writer: ")) {
      at.writer = rec.writer;
    } else if (rec.msg === "FIB chunk applied") {
      at.chunks++;
      at.lastChunkMs = ms;
    }
  }
  return at;
}

/**
 * routerd-bgp's environment as serve and its unit give it (every daemon's MALLOC_ARENA_MAX, the program table's
 * MALLOC_TRIM_THRESHOLD_), the bench's
 * own without the row choices, the row's `choose` (ROUTERD_BGP_FIB_WRITER, ROUTERD_BGP_INGEST), then
 * BGP_BENCH_ENV="NAME=VALUE -NAME ..." (-NAME removes one, e.g. the table's, to compare; its children, gobgpd
 * and ip, inherit the result as from a unit's Environment=).
 */
function routerdEnv(choose) {
  const env = { ...PROGRAM_ENVIRONMENT, ...programEnvironment("routerd-bgp"), ...process.env };
  for (const k of ["ROUTERD_BGP_FIB_WRITER", "ROUTERD_BGP_INGEST"]) delete env[k];
  Object.assign(env, choose);
  for (const kv of (process.env.BGP_BENCH_ENV ?? "").split(" ").filter(Boolean)) {
    if (kv.startsWith("-")) {
      delete env[kv.slice(1)];
      continue;
    }
    const eq = kv.indexOf("=");
    if (eq < 1) throw new Error(`BGP_BENCH_ENV: ${kv} is not NAME=VALUE or -NAME`);
    env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return env;
}

/**
 * routerd-bgp with the defaults (netlink FIB writer when built, BMP ingest), or with the choices `choose` names:
 * rows of one run differ only in these.
 */
const routerdBgp = (choose = {}) =>
  async function routerd(lab) {
    const dir = join(lab.dir, "routerd");
    mkdirSync(dir, { recursive: true });
    const config = join(dir, "config.json");
    writeFileSync(config, routerdBgpConfig());
    // BGP_BENCH_BIN: another build's launcher (A/B against a copy of an earlier build, e.g. dist-base/apps/routerd-bgp/bin/routerd-bgp.js).
    const bin = process.env.BGP_BENCH_BIN ?? join(repo, "apps/routerd-bgp/bin/routerd-bgp.js");
    // V8 flags for routerd-bgp: what serve passes (apps/routerd/src/serve/daemons.ts), or BGP_BENCH_NODE_FLAGS.
    const flags = (process.env.BGP_BENCH_NODE_FLAGS ?? "--max-semi-space-size=4").split(" ").filter(Boolean);
    // Its debug log (when each Adj-RIB-In event and FIB chunk arrived) gives the split of its time; a copy
    // goes to BGP_BENCH_LOG when set.
    const log = join(dir, "routerd-bgp.log");
    const node = launch(lab, [process.execPath, ...flags, bin, "--config", config, "--instance", "bench", "--run-dir", join(dir, "run"), "--state-dir", join(dir, "state"), "--root", join(dir, "root"), "--log-level", "debug"], openSync(log, "w"), routerdEnv(choose));
    const gobgpd = await pidFromFile(join(dir, "state/bgp/bench/companions/gobgpd.pid"));
    return {
      // Its `ip -batch` (the ip writer: the FIB writes, the kernel's work included) and `ip monitor` (the
      // echo) count too; the netlink writer's writes (the kernel's work included) are routerd-bgp's own CPU.
      pids: () => ({ "routerd-bgp": node.pid, gobgpd, ...ipChildren(node.pid) }),
      timeline: (t0, cutoff) => loadTimeline(readFileSync(log, "utf8"), t0, cutoff),
      async stop() {
        await stopPid(node.pid);
        await stopPid(gobgpd);
        if (process.env.BGP_BENCH_LOG) appendFileSync(process.env.BGP_BENCH_LOG, readFileSync(log));
      },
    };
  };

export const IMPLEMENTATIONS = {
  routerd: routerdBgp(),
  "routerd-ip": routerdBgp({ ROUTERD_BGP_FIB_WRITER: "ip" }),
  // WatchEvent instead of the default BMP ingest: both in the same run.
  "routerd-watch": routerdBgp({ ROUTERD_BGP_INGEST: "watch" }),

  gobgpd: (lab) => gobgpdAlone(lab, routerdBgpConfig(), launch),
  "gobgpd-watch": (lab) => gobgpdAlone(lab, routerdBgpConfig(), launch, "watch"),
  "gobgpd-bmp": (lab) => gobgpdAlone(lab, routerdBgpConfig(), launch, "bmp"),

  async bird(lab) {
    const dir = join(lab.dir, "bird");
    mkdirSync(dir, { recursive: true });
    const conf = join(dir, "bird.conf");
    writeFileSync(
      conf,
      `router id ${ROUTER_IP};
protocol device {}
protocol kernel { ipv4 { import none; export all; }; }
protocol bgp upstream {
  local ${ROUTER_IP} as ${ROUTER_AS};
  neighbor ${PEER_IP} as ${PEER_AS};
  ipv4 { import all; export none; };
}
`,
    );
    const p = launch(lab, ["bird", "-f", "-c", conf, "-s", join(dir, "bird.ctl"), "-P", join(dir, "bird.pid")]);
    return { pids: () => ({ bird: p.pid }), stop: () => stopPid(p.pid) };
  },

  async frr(lab) {
    const dir = join(lab.dir, "frr");
    mkdirSync(dir, { recursive: true });
    const zserv = join(dir, "zserv.api");
    writeFileSync(join(dir, "zebra.conf"), "hostname bench\n");
    writeFileSync(
      join(dir, "bgpd.conf"),
      `hostname bench
router bgp ${ROUTER_AS}
 bgp router-id ${ROUTER_IP}
 no bgp ebgp-requires-policy
 no bgp network import-check
 neighbor ${PEER_IP} remote-as ${PEER_AS}
 address-family ipv4 unicast
  neighbor ${PEER_IP} activate
 exit-address-family
`,
    );
    // FRR drops privileges to frr (root is not in its vty group): its files live in a dir it owns.
    sh("chmod", ["755", lab.dir]);
    sh("chown", ["-R", "frr:frr", dir]);
    const common = ["-z", zserv, "--vty_socket", dir, "-u", "frr", "-g", "frr"];
    launch(lab, ["/usr/lib/frr/zebra", "-f", join(dir, "zebra.conf"), "-i", join(dir, "zebra.pid"), ...common]);
    const zebra = await pidFromFile(join(dir, "zebra.pid"));
    launch(lab, ["/usr/lib/frr/bgpd", "-f", join(dir, "bgpd.conf"), "-i", join(dir, "bgpd.pid"), "-p", "179", ...common]);
    const bgpd = await pidFromFile(join(dir, "bgpd.pid"));
    return {
      pids: () => ({ bgpd, zebra }),
      async stop() {
        await stopPid(bgpd);
        await stopPid(zebra);
      },
    };
  },
};
