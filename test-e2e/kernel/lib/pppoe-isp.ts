// The ISP side of a PPPoE scenario (inside the lab VM): pppoe-server on one interface of the isp namespace,
// its per-session pppd authenticating with CHAP or PAP secrets. Its /etc/ppp is a directory of the lab,
// bind-mounted in a mount namespace of the server's own, so nothing else sees these secrets.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sh, type Lab } from "../../lib/lab.js";

export interface IspOptions {
  auth: "chap" | "pap";
  users: { name: string; password: string }[];
  /** The ISP's end of every session, and the first address of the pool handed to clients. */
  local?: string;
  poolStart?: string;
  dnsServers?: string[];
  ipv6?: boolean;
  acName?: string;
  serviceName?: string;
  /** LCP echo on the server side (s); 0 turns it off. */
  lcpEchoInterval?: number;
}

export class PppoeIsp {
  readonly dir: string;
  readonly local: string;
  private serverPid = 0;

  constructor(
    private readonly lab: Lab,
    readonly ns: string,
    readonly iface: string,
    private readonly opts: IspOptions,
  ) {
    this.dir = lab.path(`isp-${iface}`);
    this.local = opts.local ?? "10.64.0.1";
  }

  start(): void {
    const etc = join(this.dir, "etc-ppp");
    mkdirSync(etc, { recursive: true });
    const o = this.opts;
    writeFileSync(join(etc, "options"), "");
    const secrets = o.users.map((u) => `"${u.name}" * "${u.password}" *`).join("\n") + "\n";
    writeFileSync(join(etc, "chap-secrets"), secrets, { mode: 0o600 });
    writeFileSync(join(etc, "pap-secrets"), secrets, { mode: 0o600 });
    const options = [
      `require-${o.auth}`,
      `lcp-echo-interval ${o.lcpEchoInterval ?? 2}`,
      "lcp-echo-failure 3",
      "lcp-restart 1",
      ...(o.dnsServers ?? ["192.0.2.53", "192.0.2.54"]).map((d) => `ms-dns ${d}`),
      "nodefaultroute",
      "noccp",
      "novj",
      o.ipv6 ? "+ipv6" : "noipv6",
      ...(o.ipv6 ? ["ipv6 ::1,::2"] : []),
      `ipparam isp-${this.iface}`,
      `logfile ${join(this.dir, "server-pppd.log")}`,
      "debug",
    ];
    writeFileSync(join(this.dir, "server-options"), options.join("\n") + "\n");
    const pidFile = join(this.dir, "pppoe-server.pid");
    const server = [
      "pppoe-server",
      "-I", this.iface,
      "-C", o.acName ?? "lab-ac",
      ...(o.serviceName ? ["-S", o.serviceName] : []),
      "-L", this.local,
      "-R", o.poolStart ?? "10.64.0.100",
      "-N", "16",
      "-O", join(this.dir, "server-options"),
      "-X", pidFile,
    ].map((w) => `'${w}'`).join(" ");
    // pppoe-server always daemonizes (Debian's has no -F); its pid file tells where it went.
    sh(["ip", "netns", "exec", this.ns, "unshare", "--mount", "--propagation", "private", "--", "sh", "-c", `mount --bind '${etc}' /etc/ppp && ${server}`]);
    for (let i = 0; i < 50 && !this.serverPid; i++) {
      try {
        this.serverPid = Number(readFileSync(pidFile, "utf8").trim());
      } catch {
        sh(["sleep", "0.1"]);
      }
    }
    if (!this.serverPid) throw new Error("pppoe-server did not write its pid file");
  }

  /** pids of the server-side pppd of each running session. */
  sessionPids(): number[] {
    const marker = join(this.dir, "server-options");
    const out: number[] = [];
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
        if (argv.some((a) => a.endsWith("pppd")) && argv.includes(marker)) out.push(Number(entry));
      } catch {
        /* gone */
      }
    }
    return out;
  }

  /** The ISP hangs up every session (its pppd ends: LCP terminate, then PADT). */
  hangUpAll(): number {
    const pids = this.sessionPids();
    for (const pid of pids) process.kill(pid, "SIGTERM");
    return pids.length;
  }

  log(): string {
    try {
      return readFileSync(join(this.dir, "server-pppd.log"), "utf8");
    } catch {
      return "";
    }
  }

  stop(): void {
    for (const pid of [...this.sessionPids(), this.serverPid]) {
      try {
        if (pid) process.kill(pid, "SIGTERM");
      } catch {
        /* gone */
      }
    }
  }
}
