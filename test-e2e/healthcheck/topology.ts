// A router namespace with two uplinks to two "ISP" namespaces, each holding the same internet address
// 198.18.0.1 (so a probe to it tests whichever uplink it leaves by), real peers there (an HTTP server,
// dnsmasq, a garbage DNS responder), and routerd-healthcheck running in the router namespace.
//
//   rtr: up1 10.201.1.2/24 ── isp1: eth0 10.201.1.1/24, lo 198.18.0.1 (http :8080, dnsmasq :53)
//        up2 10.201.2.2/24 ── isp2: eth0 10.201.2.1/24, lo 198.18.0.1 (http :8080, garbage dns :5353)
//   main: default via isp2 (metric 100), default via isp1 (metric 200)
//   fwmark 0x101 → table 101 (isp1), fwmark 0x102 → table 102 (isp2), from 10.201.1.2 → table 101
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectDaemon, diagnoseSocket, type DaemonConnection } from "@routerd/rpc";
import { Netns, REPO, sh, tempDir } from "../lib/netns.js";

export const TARGET = "198.18.0.1";
const BIN = join(REPO, "apps/routerd-healthcheck/bin/routerd-healthcheck.js");
const PEER = join(REPO, "test-e2e/healthcheck/peer.mjs");

export interface Proc {
  child: ChildProcess;
  output(): string;
  exited: Promise<unknown>;
}

function start(ns: Netns, cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Proc {
  // `ip netns exec` execs the command, so the child's pid is the program's own.
  const child = spawn("ip", ["netns", "exec", ns.name, cmd, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let text = "";
  child.stdout!.on("data", (b: Buffer) => (text += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (text += b.toString()));
  return { child, output: () => text, exited: once(child, "exit") };
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export class Lab {
  readonly rtr = Netns.create("rd-hc-r");
  readonly isp1 = Netns.create("rd-hc-a");
  readonly isp2 = Netns.create("rd-hc-b");
  readonly tmp = tempDir("rd-hc-e2e-");
  readonly runDir = join(this.tmp.dir, "run");
  readonly stateDir = join(this.tmp.dir, "state");
  readonly configPath = join(this.tmp.dir, "healthcheck.json");
  readonly socketPath = join(this.runDir, "healthcheck", "default.sock");
  private readonly procs: Proc[] = [];
  daemon: Proc | undefined;

  constructor() {
    const { rtr } = this;
    rtr.exec("sysctl", ["-qw", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0"]);
    for (const [i, isp] of [[1, this.isp1], [2, this.isp2]] as const) {
      rtr.veth(`up${i}`, "eth0", isp);
      rtr.ip(`addr add 10.201.${i}.2/24 dev up${i}`);
      rtr.ip(`link set up${i} up`);
      isp.ip(`addr add 10.201.${i}.1/24 dev eth0`);
      isp.ip("link set eth0 up");
      isp.ip(`addr add ${TARGET}/32 dev lo`);
      rtr.ip(`route add default via 10.201.${i}.1 dev up${i} table 10${i}`);
      rtr.ip(`rule add fwmark 0x10${i} lookup 10${i} pref 110${i}`);
    }
    rtr.ip("route add default via 10.201.2.1 dev up2 metric 100");
    rtr.ip("route add default via 10.201.1.1 dev up1 metric 200");
    rtr.ip("rule add from 10.201.1.2 lookup 101 pref 1200");
  }

  /** HTTP on both ISPs, dnsmasq on isp1, a garbage DNS responder on isp2. */
  async startPeers(): Promise<void> {
    const peers = [
      start(this.isp1, process.execPath, [PEER, "--name", "isp1", "--http", "8080"]),
      start(this.isp2, process.execPath, [PEER, "--name", "isp2", "--http", "8080", "--garbage-dns", "5353", "--address", TARGET]),
    ];
    const dnsmasq = start(this.isp1, "dnsmasq", [
      "--keep-in-foreground",
      "--conf-file=/dev/null",
      "--no-resolv",
      "--no-hosts",
      "--bind-interfaces",
      `--listen-address=${TARGET}`,
      "--port=53",
      "--address=/probe.test/192.0.2.80",
      `--pid-file=${join(this.tmp.dir, "dnsmasq.pid")}`,
      "--user=root",
      "--log-facility=-",
    ]);
    this.procs.push(...peers, dnsmasq);
    for (const p of peers) await waitFor("peer ready", () => p.output().includes("ready") || p.child.exitCode !== null);
    for (const p of peers) if (p.child.exitCode !== null) throw new Error(`peer exited:\n${p.output()}`);
    await waitFor("dnsmasq listening", () => this.isp1.exec("ss", ["-Hlun", `sport = :53`]).stdout.includes(TARGET) || dnsmasq.child.exitCode !== null);
    if (dnsmasq.child.exitCode !== null) throw new Error(`dnsmasq exited:\n${dnsmasq.output()}`);
  }

  writeConfig(probes: object[]): void {
    writeFileSync(this.configPath, JSON.stringify({ probes }, null, 2));
  }

  /** Starts the daemon in the router namespace and connects to it. */
  async startDaemon(): Promise<DaemonConnection> {
    const d = start(this.rtr, process.execPath, [BIN, "--config", this.configPath, "--run-dir", this.runDir, "--state-dir", this.stateDir, "--log-level", "debug"]);
    this.daemon = d;
    this.procs.push(d);
    await waitFor("daemon listening", async () => d.child.exitCode !== null || (d.output().includes('"daemon listening"') && (await diagnoseSocket(this.socketPath)) === undefined));
    if (d.child.exitCode !== null) throw new Error(`routerd-healthcheck exited with ${d.child.exitCode}:\n${d.output()}`);
    return connectDaemon(this.socketPath);
  }

  /** Drops everything that reaches this ISP (the probe target goes silent). */
  blackout(isp: Netns): void {
    isp.exec("nft", ["add table inet rdhc; add chain inet rdhc input { type filter hook input priority 0; policy drop; }"]);
  }

  restore(isp: Netns): void {
    isp.exec("nft", ["delete table inet rdhc"]);
  }

  async destroy(): Promise<void> {
    for (const p of this.procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGTERM");
    await Promise.race([Promise.all(this.procs.map((p) => (p.child.exitCode === null && p.child.signalCode === null ? p.exited : undefined))), new Promise((r) => setTimeout(r, 3000))]);
    for (const ns of [this.rtr, this.isp1, this.isp2]) {
      // Anything still running in a namespace (a ping child of a killed daemon) dies with it.
      for (const pid of sh("ip", ["netns", "pids", ns.name], { allowFail: true }).stdout.split(/\s+/).filter(Boolean)) {
        sh("kill", ["-9", pid], { allowFail: true });
      }
      ns.destroy();
    }
    this.tmp.cleanup();
  }
}
