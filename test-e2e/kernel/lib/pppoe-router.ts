// A PPPoE router inside the lab VM: isp (pppoe-server, an "internet" address), rtr (routerd serve with a
// PPPoESession) and lan (a client behind rtr). routerd creates everything on rtr itself.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectDaemon, daemonSocketPath } from "@routerd/rpc";
import { res, routerYaml, type ResourceDoc } from "../../lib/config.js";
import { killAll } from "../../lib/daemons.js";
import { Lab, sh } from "../../lib/lab.js";
import type { Netns } from "../../lib/netns.js";
import { startServe, type ServeProcess } from "../../lib/serve.js";
import { PppoeIsp, type IspOptions } from "./pppoe-isp.js";

/** An address on the ISP's side that only NAT over the session reaches. */
export const INTERNET = "198.51.100.10";

export interface SessionStatus {
  phase: string;
  details: Record<string, unknown>;
}

export class PppoeRouter {
  readonly lab = new Lab("prt", "kl");
  readonly isp: string;
  readonly rtr: string;
  readonly lan: string;
  readonly server: PppoeIsp;
  readonly dirs: { stateDir: string; runDir: string; root: string };
  readonly configPath: string;
  readonly passwordFile: string;
  serve?: ServeProcess;

  constructor(isp: Partial<IspOptions> = {}) {
    [this.isp, this.rtr, this.lan] = [this.lab.netns("isp"), this.lab.netns("rtr"), this.lab.netns("lan")];
    this.lab.veth(this.isp, "isp0", this.rtr, "wan0");
    this.lab.veth(this.lan, "eth0", this.rtr, "lan0");
    sh(["ip", "-n", this.rtr, "link", "set", "lan0", "down"]); // routerd brings it up
    sh(["ip", "-n", this.isp, "addr", "add", `${INTERNET}/32`, "dev", "lo"]);
    sh(["ip", "-n", this.lan, "addr", "add", "192.168.1.2/24", "dev", "eth0"]);
    sh(["ip", "-n", this.lan, "route", "add", "default", "via", "192.168.1.1"]);
    this.server = new PppoeIsp(this.lab, this.isp, "isp0", { auth: "chap", users: [{ name: "alice", password: "wonderland" }], ...isp });
    this.server.start();
    this.dirs = { stateDir: this.lab.path("state"), runDir: this.lab.path("run"), root: this.lab.path("root") };
    this.configPath = this.lab.path("router.yaml");
    this.passwordFile = this.lab.path("password");
    writeFileSync(this.passwordFile, "wonderland\n", { mode: 0o600 });
  }

  /** The router: a PPPoE uplink with the default route and the ISP's DNS, the LAN NATed over it. */
  resources(session: Record<string, unknown> = {}, extra: ResourceDoc[] = []): ResourceDoc[] {
    return [
      res("Interface", "wan", { ifname: "wan0" }),
      res("Interface", "lan", { ifname: "lan0" }),
      res("IPv4StaticAddress", "lan-addr", { interface: "lan", address: "192.168.1.1/24" }),
      res("Sysctl", "forward", { key: "net.ipv4.ip_forward", value: 1 }),
      res("PPPoESession", "isp", { interface: "wan", username: "alice", passwordFile: this.passwordFile, defaultRoute: true, usePeerDNS: true, lcpEchoInterval: 2, lcpEchoFailure: 3, ...session }),
      res("NAT44Rule", "masq", { egressInterface: "isp", sourceRanges: ["192.168.1.0/24"] }),
      ...extra,
    ];
  }

  writeConfig(resources: ResourceDoc[]): void {
    writeFileSync(this.configPath, routerYaml(resources));
  }

  start(resources: ResourceDoc[]): void {
    this.writeConfig(resources);
    this.serve = startServe({ name: this.rtr } as Netns, { config: this.configPath, ...this.dirs });
  }

  /** What routerd-pppoe-client reports for the session, or undefined while it does not answer. */
  async session(): Promise<SessionStatus | undefined> {
    let conn;
    try {
      conn = await connectDaemon(daemonSocketPath(this.dirs.runDir, "pppoe-client", "isp"), { connectTimeoutMs: 5000, callTimeoutMs: 10000 });
      const r = (await conn.getStatus()).resources.find((x) => x.name === "isp");
      return r ? { phase: r.phase, details: r.detailsJson ? (JSON.parse(r.detailsJson) as Record<string, unknown>) : {} } : undefined;
    } catch {
      return undefined;
    } finally {
      conn?.close();
    }
  }

  routes(): string {
    return sh(["ip", "-n", this.rtr, "route"], { allowFail: true });
  }

  resolvConf(): string {
    const path = join(this.dirs.root, "etc/resolv.conf");
    return existsSync(path) ? readFileSync(path, "utf8") : "";
  }

  /** One ping from the LAN client to the ISP's internet address. */
  lanReachesInternet(): boolean {
    return /1 received/.test(sh(["ip", "netns", "exec", this.lan, "ping", "-c1", "-W2", INTERNET], { allowFail: true }));
  }

  /** The events routerd-pppoe-client logged (its daemon.log), oldest first. */
  daemonEvents(): { topic: string; attributes: Record<string, string> }[] {
    const path = join(this.dirs.stateDir, "pppoe-client", "isp", "daemon.log");
    if (!existsSync(path)) return [];
    return readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l.includes('"topic"') && l.endsWith("}")) // a line still being written is left for later
      .map((l) => JSON.parse(l) as { topic: string; attributes: Record<string, string> });
  }

  serveLog(): string {
    const daemonLog = join(this.dirs.stateDir, "pppoe-client", "isp", "daemon.log");
    const daemon = existsSync(daemonLog) ? readFileSync(daemonLog, "utf8").split("\n").filter((l) => !l.includes('"pppd":true')).join("\n").slice(-4000) : "(no daemon log)";
    return [
      (this.serve?.log ?? []).join("").slice(-4000),
      `--- resources not Ready:\n${this.unready().join("\n") || "(none)"}`,
      `--- rtr IPv6:\n${sh(["ip", "-n", this.rtr, "-6", "addr"], { allowFail: true })}${sh(["ip", "-n", this.rtr, "-6", "route"], { allowFail: true })}`,
      `--- pppoe-client daemon.log:\n${daemon}`,
    ].join("\n");
  }

  /** What routerd's status says of every resource that is not Ready (the reason a reconcile keeps failing). */
  unready(): string[] {
    const path = join(this.dirs.stateDir, "status.json");
    if (!existsSync(path)) return [];
    const { statuses } = JSON.parse(readFileSync(path, "utf8")) as { statuses: { owner: string; phase: string }[] };
    return statuses.filter((x) => x.phase !== "Ready").map((x) => JSON.stringify(x).slice(0, 600));
  }

  async destroy(): Promise<void> {
    await this.serve?.stop("SIGKILL");
    await killAll(this.dirs.runDir);
    this.server.stop();
    await this.lab.cleanup();
  }
}
