// A router namespace with three BGP neighbors in two other namespaces: a gobgpd peer (AS 65002, IPv4 and
// IPv6 sessions) and a bird2 peer (AS 65003). Both announce prefixes; one prefix comes from both (ECMP).
// The router's LAN is a veth pair inside the router namespace (a connected route to redistribute).
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Netns, REPO, sh } from "../lib/netns.js";

export const BGP_BIN = join(REPO, "apps/routerd-bgp/bin/routerd-bgp.js");

export const R_ISP = "10.91.0.1";
export const ISP = "10.91.0.2";
export const R_ISP6 = "fd91::1";
export const ISP6 = "fd91::2";
export const R_IX = "10.92.0.1";
export const IX = "10.92.0.2";
export const LAN = "192.168.77.0/24";
export const LAN6 = "2001:db8:77::/64";

export class BgpLab {
  readonly router = Netns.create("rbg");
  readonly isp = Netns.create("rbi");
  readonly ix = Netns.create("rbx");
  readonly dir = mkdtempSync(join(tmpdir(), "routerd-bgp-e2e-"));
  readonly children: ChildProcess[] = [];
  /** Namespaces a test adds to the lab (destroyed with it). */
  readonly extra: Netns[] = [];
  daemon: ChildProcess | undefined;

  constructor() {
    chmodSync(this.dir, 0o755);
    this.router.veth("bgi0", "bgi1", this.isp);
    this.router.veth("bgx0", "bgx1", this.ix);
    this.router.veth("bgl0", "bgl1");
    for (const [ns, dev, addrs] of [
      [this.router, "bgi0", [`${R_ISP}/24`, `${R_ISP6}/64`]],
      [this.isp, "bgi1", [`${ISP}/24`, `${ISP6}/64`]],
      [this.router, "bgx0", [`${R_IX}/24`]],
      [this.ix, "bgx1", [`${IX}/24`]],
      [this.router, "bgl0", ["192.168.77.1/24", "2001:db8:77::1/64"]],
    ] as const) {
      for (const a of addrs) ns.ip(`addr add ${a} dev ${dev}`);
      ns.ip(`link set ${dev} up`);
    }
    this.router.ip("link set bgl1 up");
  }

  get ispSocket(): string {
    return join(this.dir, "isp-gobgpd.sock");
  }

  /** gobgp CLI against the ISP's gobgpd. */
  ispCli(...args: string[]): string {
    return this.isp.exec("gobgp", ["--target", `unix://${this.ispSocket}`, ...args]).stdout;
  }

  spawnIn(ns: Netns, argv: string[], log: string): ChildProcess {
    const out = join(this.dir, log);
    writeFileSync(out, "");
    const child = spawn("sh", ["-c", `exec ip netns exec ${ns.name} "$@" >>${out} 2>&1`, "sh", ...argv], { stdio: "ignore" });
    this.children.push(child);
    return child;
  }

  async startIsp(): Promise<void> {
    this.spawnIn(this.isp, ["gobgpd", `--api-hosts=unix://${this.ispSocket}`, "--pprof-disable", "--log-level=warn"], "isp-gobgpd.log");
    for (let i = 0; i < 100; i++) {
      if (this.isp.exec("gobgp", ["--target", `unix://${this.ispSocket}`, "global"], { allowFail: true }).code === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    this.ispCli("global", "as", "65002", "router-id", ISP);
    this.ispCli("neighbor", "add", R_ISP, "as", "65001");
    this.ispCli("neighbor", "add", R_ISP6, "as", "65001");
    this.ispCli("global", "rib", "add", "172.31.1.0/24", "nexthop", ISP, "-a", "ipv4");
    this.ispCli("global", "rib", "add", "172.31.2.0/24", "nexthop", ISP, "community", "65002:666", "-a", "ipv4");
    this.ispCli("global", "rib", "add", "172.31.3.128/25", "nexthop", ISP, "-a", "ipv4");
    this.ispCli("global", "rib", "add", "172.31.9.0/24", "nexthop", ISP, "-a", "ipv4");
    this.ispCli("global", "rib", "add", "2001:db8:91::/48", "nexthop", ISP6, "-a", "ipv6");
  }

  /** FRR bfdd in the ISP namespace (its own sockets in the lab dir), one session to the router. */
  startIspBfdd(intervalMs: number, multiplier: number): ChildProcess {
    const dir = join(this.dir, "isp-bfdd");
    this.ispBfddDir = dir;
    return this.startBfdd(this.isp, dir, { peer: R_ISP, local: ISP, intervalMs, multiplier });
  }

  /** FRR bfdd in any namespace of the lab, its sockets and config in dir, one session (multihop or not). */
  startBfdd(ns: Netns, dir: string, s: { peer: string; local: string; intervalMs: number; multiplier: number; multihop?: boolean }): ChildProcess {
    mkdirSync(dir, { recursive: true });
    const conf = join(dir, "bfdd.conf");
    writeFileSync(conf, `bfd\n peer ${s.peer}${s.multihop === true ? " multihop" : ""} local-address ${s.local}\n  detect-multiplier ${s.multiplier}\n  receive-interval ${s.intervalMs}\n  transmit-interval ${s.intervalMs}\n !\n!\n`);
    return this.spawnIn(
      ns,
      ["/usr/lib/frr/bfdd", "-u", "root", "-g", "frrvty", "-f", conf, "-i", join(dir, "bfdd.pid"), "--vty_socket", dir, "-z", join(dir, "zserv.api"), "--bfdctl", join(dir, "bfdd.sock"), "-A", "127.0.0.1", "-P", "0", "--log", `file:${join(dir, "bfdd.log")}`],
      `${ns.name}-bfdd.out`,
    );
  }
  ispBfddDir: string | undefined;

  startIx(): ChildProcess {
    const conf = join(this.dir, "bird.conf");
    writeFileSync(
      conf,
      `router id ${IX};
protocol device {}
protocol static { ipv4; route 172.31.9.0/24 blackhole; route 172.31.10.0/24 blackhole; }
protocol bgp edge {
  local ${IX} as 65003;
  neighbor ${R_IX} as 65001;
  # ORIGIN as the gobgpd peer's (incomplete), so both paths tie and GoBGP reports them as multipath.
  ipv4 { import all; export filter { if source = RTS_STATIC then { bgp_origin = ORIGIN_INCOMPLETE; accept; } reject; }; };
}
`,
    );
    return this.spawnIn(this.ix, ["bird", "-f", "-c", conf, "-s", join(this.dir, "bird.ctl"), "-P", join(this.dir, "bird.pid")], "bird.log");
  }

  birdCli(...args: string[]): string {
    return this.ix.exec("birdc", ["-s", join(this.dir, "bird.ctl"), ...args], { allowFail: true }).stdout;
  }

  writeConfig(config: unknown): string {
    const path = join(this.dir, "bgp.json");
    writeFileSync(path, JSON.stringify(config, null, 2));
    return path;
  }

  get runDir(): string {
    return join(this.dir, "run");
  }
  get stateDir(): string {
    return join(this.dir, "state");
  }
  get socket(): string {
    return join(this.runDir, "bgp", "edge.sock");
  }
  /** routerd-bgp's gobgpd API socket (the word its cmdline names). */
  get gobgpdSocket(): string {
    return join(this.runDir, "bgp", "edge.gobgpd.sock");
  }
  /** Processes in a namespace. */
  pidsIn(ns: Netns): number[] {
    return sh("ip", ["netns", "pids", ns.name], { allowFail: true }).stdout.split("\n").filter(Boolean).map(Number);
  }
  /** routerd-bgp's record of a companion (gobgpd, bfdd) and of its keeper. */
  companionRecord(name: string): string {
    return join(this.stateDir, "bgp", "edge", "companions", `${name}.pid`);
  }
  companionPid(name: string): number | undefined {
    try {
      return (JSON.parse(readFileSync(this.companionRecord(name), "utf8")) as { pid: number }).pid;
    } catch {
      return undefined;
    }
  }

  /** env: variables for routerd-bgp (e.g. ROUTERD_BGP_INGEST), set with env(1) so its pid stays the daemon's. */
  startDaemon(configPath: string, extra: string[] = [], env: Record<string, string> = {}): ChildProcess {
    this.daemon = this.spawnIn(
      this.router,
      [...(Object.keys(env).length ? ["env", ...Object.entries(env).map(([k, v]) => `${k}=${v}`)] : []), process.execPath, BGP_BIN, "--config", configPath, "--instance", "edge", "--run-dir", this.runDir, "--state-dir", this.stateDir, "--root", join(this.dir, "root"), "--stale-hold", "120s", ...extra],
      "routerd-bgp.log",
    );
    return this.daemon;
  }

  /**
   * Holds a peer's BGP sessions back: TCP 179 refused (reset) both ways in its namespace, until the
   * returned function lifts it. Its own table, so nothing else in that namespace is touched.
   */
  blockBgp(ns: Netns): () => void {
    const table = "rdtest_block_bgp";
    ns.exec("nft", ["-f", "-"], {
      input: `table inet ${table} {
  chain in { type filter hook input priority 0; tcp dport 179 reject with tcp reset; }
  chain out { type filter hook output priority 0; tcp dport 179 reject with tcp reset; }
}
`,
    });
    return () => void ns.exec("nft", ["delete", "table", "inet", table], { allowFail: true });
  }

  /** `ip route` lines of routerd-bgp's protocol in the router namespace. */
  fib(family: "-4" | "-6" = "-4"): string[] {
    return this.router.ip(`-o ${family} route show proto 219`).stdout.split("\n").filter(Boolean);
  }

  destroy(): void {
    // Everything still running in the namespaces (our gobgpd and bfdds included) goes with them.
    for (const ns of [this.router, this.isp, this.ix, ...this.extra]) {
      for (const pid of this.pidsIn(ns)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* gone */
        }
        // FRR's scratch dir of a bfdd killed here.
        rmSync(`/var/tmp/frr/bfdd.${pid}`, { recursive: true, force: true });
      }
      ns.destroy();
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
