// The IPv6 LAN scenario: an "isp" namespace (kea-dhcp6 delegating /56s, plus a host address to reach),
// a "router" namespace running `routerd serve`, and a "lan" namespace whose kernel autoconfigures from
// routerd's router advertisements. Everything is made through Lab and removed by cleanup().
//
//   isp: isp0 2001:db8:1::1/64 ── wan0 :router: lan0 ── c0 :lan (SLAAC)
//
// kea installs no routes and sends no router advertisements, so the test adds what an ISP's network would
// provide: the router's default route (normally from the ISP's RA) and the ISP's route back to the
// delegated prefixes via the router's WAN link-local address.
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { connectDaemon, daemonSocketPath, type DaemonConnection, type Event, type ResourceState } from "@routerd/rpc";
import { Kea, type KeaSettings } from "../../dhcpv6-client/support/kea.js";
import { Lab, sh, terminate } from "../../dhcpv6-client/support/lab.js";
import { res, routerYaml, type ResourceDoc } from "../../lib/config.js";
import { ROUTERD } from "../../lib/netns.js";
import { until } from "../../lib/serve.js";

export { until };

export const ISP_HOST = "2001:db8:1::1";
export const POOLS = ["2001:db8:1000::", "2001:db8:2000::"];
const SNIFFER = new URL("./ra-sniff.py", import.meta.url).pathname;

export interface Ra {
  at: number;
  routerLifetime: number;
  flags: number;
  pio: { prefix: string; valid: number; preferred: number; flags: number }[];
  rdnss: { lifetime: number; servers: string[] }[];
}

export interface Addr {
  address: string;
  prefixLength: number;
  valid: number;
  preferred: number;
  deprecated: boolean;
}


export class Ipv6Lan {
  readonly lab = new Lab("v6lan");
  readonly isp = this.lab.netns("isp");
  readonly router = this.lab.netns("rtr");
  readonly lan = this.lab.netns("lan");
  readonly runDir = this.lab.path("run");
  readonly stateDir = this.lab.path("state");
  readonly root = this.lab.path("root");
  readonly config = this.lab.path("router.yaml");
  readonly ras: Ra[] = [];
  readonly events: Event[] = [];
  kea!: Kea;
  serve?: ChildProcess;
  serveLog = "";
  private sniffer?: ChildProcess;
  private conn?: DaemonConnection;
  private watching?: AbortController;

  constructor(private readonly keaSettings: (iface: string) => KeaSettings) {}

  async setUp(resources: ResourceDoc[]): Promise<void> {
    const { lab } = this;
    lab.veth(this.isp, "isp0", this.router, "wan0");
    lab.veth(this.router, "lan0", this.lan, "c0");
    sh(["ip", "-n", this.isp, "addr", "add", `${ISP_HOST}/64`, "dev", "isp0"]);
    const wanLl = await this.linkLocal(this.router, "wan0");
    const ispLl = await this.linkLocal(this.isp, "isp0");
    for (const pool of POOLS) sh(["ip", "-n", this.isp, "-6", "route", "add", `${pool}/36`, "via", wanLl, "dev", "isp0"]);
    sh(["ip", "-n", this.router, "-6", "route", "add", "default", "via", ispLl, "dev", "wan0"]);
    this.kea = new Kea(lab, this.isp, this.keaSettings("isp0"));
    await this.kea.start();
    this.sniffer = lab.spawn(this.lan, ["/usr/bin/python3", SNIFFER, "900"]);
    createInterface({ input: this.sniffer.stdout! }).on("line", (l) => this.ras.push(JSON.parse(l) as Ra));
    writeFileSync(this.config, routerYaml(resources, "ipv6-lan"));
    this.startServe();
  }

  /** The link-local address appears a moment after link-up. */
  private async linkLocal(ns: string, ifname: string): Promise<string> {
    return until(`a link-local address on ${ifname}`, () => {
      // With a scope filter, ip -j prints the addresses it filtered out as {}.
      const j = JSON.parse(sh(["ip", "-n", ns, "-j", "-6", "addr", "show", "dev", ifname, "scope", "link"])) as { addr_info: { local?: string }[] }[];
      return j[0]?.addr_info.find((a) => a.local)?.local;
    }, 5000, 20);
  }

  startServe(extra: string[] = []): void {
    this.serve = this.lab.spawn(this.router, [process.execPath, ROUTERD, "serve", "--config", this.config, "--state-dir", this.stateDir, "--run-dir", this.runDir, "--root", this.root, "--interval", "2s", ...extra]);
    this.serve.stdout!.on("data", (b: Buffer) => (this.serveLog += b.toString()));
    this.serve.stderr!.on("data", (b: Buffer) => (this.serveLog += b.toString()));
  }

  async stopServe(): Promise<void> {
    if (this.serve) await terminate(this.serve, 15_000);
    this.serve = undefined;
  }

  /** The dhcpv6-client daemon's socket (serve starts it); events are collected from the first connect on. */
  async daemon(instance = "isp"): Promise<DaemonConnection> {
    if (this.conn) return this.conn;
    const conn = await until("the dhcpv6-client socket", () => connectDaemon(daemonSocketPath(this.runDir, "dhcpv6-client", instance), { connectTimeoutMs: 500 }), 30_000, 200);
    this.conn = conn;
    this.watching = new AbortController();
    const signal = this.watching.signal;
    void (async () => {
      for await (const e of conn.watchEvents({ afterSeq: 0, topicPrefixes: ["dhcpv6."], signal })) this.events.push(e);
    })().catch(() => undefined);
    return conn;
  }

  /** Forget the connection (the daemon is restarting). */
  dropDaemon(): void {
    this.watching?.abort();
    this.conn?.close();
    this.conn = undefined;
  }

  async resource(instance = "isp"): Promise<ResourceState | undefined> {
    return (await (await this.daemon(instance)).getStatus()).resources.find((r) => r.name === instance);
  }

  /** The PID of a daemon the supervisor started (from its pid file). */
  daemonPid(daemon: string, instance: string): number {
    return (JSON.parse(sh(["cat", join(this.runDir, daemon, `${instance}.pid`)])) as { pid: number }).pid;
  }

  addresses(ns: string, ifname: string): Addr[] {
    const j = JSON.parse(sh(["ip", "-n", ns, "-j", "-6", "addr", "show", "dev", ifname, "scope", "global"])) as {
      addr_info: { local: string; prefixlen: number; valid_life_time: number; preferred_life_time: number; deprecated?: boolean }[];
    }[];
    return (j[0]?.addr_info ?? []).filter((a) => a.local).map((a) => ({ address: a.local, prefixLength: a.prefixlen, valid: a.valid_life_time, preferred: a.preferred_life_time, deprecated: a.deprecated === true }));
  }

  routes(ns: string): string {
    return sh(["ip", "-n", ns, "-6", "route", "show"]);
  }

  ping(from: string, to: string): boolean {
    const r = spawnSyncQuiet(["ip", "netns", "exec", this.lan, "ping", "-6", "-c", "2", "-i", "0.2", "-W", "2", ...(from ? ["-I", from] : []), to]);
    return r === 0;
  }

  /** RAs received after `since` (epoch ms). */
  rasSince(since: number): Ra[] {
    return this.ras.filter((r) => r.at >= since);
  }

  /** Stops everything and removes the namespaces, whatever fails on the way (the lab is removed last, always). */
  async cleanup(): Promise<void> {
    try {
      this.dropDaemon();
      if (this.serve) await terminate(this.serve, 15_000);
      // Daemons the supervisor started run detached: stop what is left in our namespaces by PID.
      for (const ns of [this.router, this.lan, this.isp]) {
        for (const pid of sh(["ip", "netns", "pids", ns], { allowFail: true }).split(/\s+/).filter(Boolean)) {
          try {
            process.kill(Number(pid), "SIGKILL");
          } catch {
            /* already gone */
          }
        }
      }
    } finally {
      await this.lab.cleanup();
    }
  }
}

function spawnSyncQuiet(argv: string[]): number {
  try {
    sh(argv);
    return 0;
  } catch {
    return 1;
  }
}

export const ROUTER_CONFIG = (ra: Record<string, unknown> = {}): ResourceDoc[] => [
  res("Interface", "wan", { ifname: "wan0" }),
  res("Interface", "lan", { ifname: "lan0" }),
  res("Sysctl", "forwarding", { key: "net.ipv6.conf.all.forwarding", value: 1 }),
  res("DHCPv6PrefixDelegation", "isp", { interface: "wan", prefixLength: 56 }),
  res("IPv6DelegatedAddress", "lan6", { prefixDelegation: "isp", interface: "lan", subnetID: 1, announce: true }),
  res("IPv6RouterAdvertisement", "lan-ra", { interface: "lan", interval: "4s", lifetimes: { router: "30s" }, ...ra }),
  res("DHCPv6Information", "lan-info", { interface: "lan" }),
];

