// The soak lab: a router namespace with two uplinks and a LAN, and the ISP side of uplink 1 run by real
// engines — kea-dhcp4 (20 s leases, renew at 8 s) and kea-dhcp6 (prefix delegation, renew every 10 s) —
// plus a TCP service the router's health check probes, which the bench takes away and brings back.
//
//   isp: up1 10.77.0.1/24, 2001:db8:1::1/64 ── wan1 :router: wan2 ── up2 203.0.113.1/30 :isp2
//        kea-dhcp4, kea-dhcp6, tcp :7070                      lan0 ── cl0 10.10.0.10/24 :lan   gobgpd AS 65002
//
// The ISP's resolver (10.77.0.53, handed out by kea) answers the router's routerd-dns-resolver, which a LAN
// client asks 10 questions a second (dns-peers.mjs).
// isp2 also runs a gobgpd (AS 65002) peering with the router's routerd-bgp: the bench announces and
// withdraws a batch of prefixes and now and then resets the session (BGP route churn into the FIB).
//
// Every namespace, process and file is recorded and removed by destroy() (names carry a random id).
import { execFile, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, openSync, closeSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

export const ISP1 = { dns: "10.77.0.53", gateway: "10.77.0.1", subnet: "10.77.0.0/24", pool: "10.77.0.100 - 10.77.0.150", v6: "2001:db8:1::1/64", pdPool: "2001:db8:1000::" };
export const ISP2 = { gateway: "203.0.113.1", router: "203.0.113.2/30" };
export const TARGET_PORT = 7070;
export const BGP = { peerASN: 65002, routerASN: 65001, routerAddress: ISP2.router.split("/")[0], prefixes: 20 };

function run(argv, { input = "", allowFail = false } = {}) {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: "utf8", input });
  if (!allowFail && r.status !== 0) throw new Error(`${argv.join(" ")} failed: ${r.stderr || r.error}`);
  return r;
}

/** The programs the lab runs, with the Debian package of each (a new machine may lack some). */
export const LAB_PROGRAMS = [
  { program: "ip", pkg: "iproute2" },
  { program: "kea-dhcp4", pkg: "kea-dhcp4-server" },
  { program: "kea-dhcp6", pkg: "kea-dhcp6-server" },
  { program: "gobgpd", pkg: "gobgpd" },
  { program: "gobgp", pkg: "gobgpd" },
];

/** The Debian packages to install for the programs not found on PATH (plus the sbin dirs a sudo shell may lack). */
export function missingPackages(path = process.env.PATH ?? "") {
  const dirs = [...path.split(":").filter(Boolean), "/usr/sbin", "/sbin"];
  const missing = LAB_PROGRAMS.filter(({ program }) => !dirs.some((d) => existsSync(join(d, program))));
  return [...new Set(missing.map((m) => m.pkg))];
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const runAsync = promisify(execFile);

/** Sends SIGTERM (again every 300 ms, as a signal can be lost while a program starts), SIGKILL after `ms`. */
export async function stopProcess(child, ms = 5000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once("exit", r));
  const start = Date.now();
  while (child.exitCode === null && child.signalCode === null) {
    child.kill(Date.now() - start > ms ? "SIGKILL" : "SIGTERM");
    await Promise.race([gone, sleep(300)]);
  }
}

export class SoakLab {
  constructor(dir) {
    this.id = randomBytes(3).toString("hex");
    this.dir = dir;
    this.namespaces = [];
    this.children = [];
    mkdirSync(dir, { recursive: true });
    try {
      this.router = this.netns("r");
      this.isp = this.netns("isp");
      this.isp2 = this.netns("isp2");
      this.lan = this.netns("lan");
      this.wire();
    } catch (err) {
      this.destroySync();
      throw err;
    }
  }

  netns(role) {
    const name = `rdsoak-${this.id}-${role}`;
    run(["ip", "netns", "add", name]);
    this.namespaces.push(name);
    run(["ip", "-n", name, "link", "set", "lo", "up"]);
    run(["ip", "netns", "exec", name, "sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0"]);
    return name;
  }

  wire() {
    for (const [a, ifA, b, ifB] of [[this.router, "wan1", this.isp, "up1"], [this.router, "wan2", this.isp2, "up2"], [this.router, "lan0", this.lan, "cl0"]]) {
      run(["ip", "link", "add", ifA, "netns", a, "type", "veth", "peer", "name", ifB, "netns", b]);
      run(["ip", "-n", b, "link", "set", ifB, "up"]);
    }
    // The WAN cable is plugged in: kea opens its sockets only on a running link.
    run(["ip", "-n", this.router, "link", "set", "wan1", "up"]);
    run(["ip", "-n", this.isp, "addr", "add", `${ISP1.gateway}/24`, "dev", "up1"]);
    run(["ip", "-n", this.isp, "addr", "add", ISP1.v6, "dev", "up1"]);
    run(["ip", "-n", this.isp, "addr", "add", `${ISP1.dns}/32`, "dev", "up1"]);
    run(["ip", "-n", this.isp2, "addr", "add", `${ISP2.gateway}/30`, "dev", "up2"]);
    run(["ip", "-n", this.lan, "addr", "add", "10.10.0.10/24", "dev", "cl0"]);
    run(["ip", "-n", this.lan, "route", "add", "default", "via", "10.10.0.1"]);
  }

  /** Starts a long-running program in a namespace, its output appended to <dir>/<log>. */
  spawn(ns, argv, log, env = process.env) {
    const fd = openSync(join(this.dir, log), "a");
    const child = spawn("ip", ["netns", "exec", ns, ...argv], { stdio: ["ignore", fd, fd], env });
    closeSync(fd);
    this.children.push(child);
    return child;
  }

  async startKea() {
    const keaDir = join(this.dir, "kea");
    mkdirSync(keaDir, { recursive: true });
    const env = { ...process.env, KEA_PIDFILE_DIR: keaDir, KEA_LOCKFILE_DIR: keaDir };
    const logger = (name) => [{ name, output_options: [{ output: "stdout" }], severity: "INFO" }];
    const v4 = {
      Dhcp4: {
        "interfaces-config": { interfaces: ["up1"] },
        "control-socket": { "socket-type": "unix", "socket-name": join(keaDir, "kea4.sock") },
        "lease-database": { type: "memfile", persist: false },
        "valid-lifetime": 20,
        "renew-timer": 8,
        "rebind-timer": 15,
        subnet4: [
          {
            id: 1,
            subnet: ISP1.subnet,
            interface: "up1",
            pools: [{ pool: ISP1.pool }],
            "option-data": [
              { name: "routers", data: ISP1.gateway },
              { name: "domain-name-servers", data: ISP1.dns },
            ],
          },
        ],
        loggers: logger("kea-dhcp4"),
      },
    };
    const v6 = {
      Dhcp6: {
        "interfaces-config": { interfaces: ["up1"] },
        "control-socket": { "socket-type": "unix", "socket-name": join(keaDir, "kea6.sock") },
        "lease-database": { type: "memfile", persist: false },
        "data-directory": keaDir,
        "server-id": { type: "EN", "enterprise-id": 32473, identifier: "0a0b0c0d", persist: false },
        "renew-timer": 10,
        "rebind-timer": 20,
        "preferred-lifetime": 30,
        "valid-lifetime": 60,
        subnet6: [{ id: 1, subnet: "2001:db8:1::/64", interface: "up1", "pd-pools": [{ prefix: ISP1.pdPool, "prefix-len": 40, "delegated-len": 56 }] }],
        loggers: logger("kea-dhcp6"),
      },
    };
    writeFileSync(join(keaDir, "kea4.json"), JSON.stringify(v4, null, 2));
    writeFileSync(join(keaDir, "kea6.json"), JSON.stringify(v6, null, 2));
    this.kea4 = this.spawn(this.isp, ["kea-dhcp4", "-c", join(keaDir, "kea4.json")], "kea4.log", env);
    this.kea6 = this.spawn(this.isp, ["kea-dhcp6", "-c", join(keaDir, "kea6.json")], "kea6.log", env);
    for (const [child, sock] of [[this.kea4, "kea4.sock"], [this.kea6, "kea6.sock"]]) {
      const deadline = Date.now() + 10_000;
      while (!existsSync(join(keaDir, sock))) {
        if (child.exitCode !== null) throw new Error(`kea exited (${child.exitCode}); see ${this.dir}/${sock.replace(".sock", ".log")}`);
        if (Date.now() > deadline) throw new Error(`kea control socket ${sock} did not appear`);
        await sleep(50);
      }
    }
  }

  /**
   * gobgp CLI against the isp2 gobgpd. Asynchronous: on a loaded machine a batch of CLI calls takes seconds,
   * and a synchronous one would stall the bench's sampling meanwhile.
   */
  async bgpCli(...args) {
    const argv = ["netns", "exec", this.isp2, "gobgp", "--target", `unix://${join(this.dir, "isp2-gobgpd.sock")}`, ...args];
    return (await runAsync("ip", argv, { timeout: 30_000 })).stdout;
  }

  /** The BGP peer on isp2: routerd-bgp's neighbor, ready to announce the bench's prefixes. */
  async startBgpPeer() {
    this.gobgpd = this.spawn(this.isp2, ["gobgpd", `--api-hosts=unix://${join(this.dir, "isp2-gobgpd.sock")}`, "--pprof-disable", "--log-level=warn"], "isp2-gobgpd.log");
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await this.bgpCli("global");
        break;
      } catch (err) {
        if (this.gobgpd.exitCode !== null || Date.now() > deadline) throw new Error(`gobgpd did not start (${err.message}); see ${this.dir}/isp2-gobgpd.log`);
        await sleep(200);
      }
    }
    await this.bgpCli("global", "as", String(BGP.peerASN), "router-id", ISP2.gateway);
    await this.bgpCli("neighbor", "add", BGP.routerAddress, "as", String(BGP.routerASN));
    this.bgpAnnounced = false;
  }

  /** Announces the batch of prefixes (100.64.k.0/24) if they are withdrawn, withdraws them otherwise. */
  async bgpToggle() {
    const verb = this.bgpAnnounced ? "del" : "add";
    for (let k = 0; k < BGP.prefixes; k++) await this.bgpCli("global", "rib", verb, `100.64.${k}.0/24`, "nexthop", ISP2.gateway, "-a", "ipv4");
    this.bgpAnnounced = !this.bgpAnnounced;
  }

  /** A hard reset of the session (as after a peer's restart): routes withdrawn, session re-established. */
  async bgpReset() {
    await this.bgpCli("neighbor", BGP.routerAddress, "reset");
  }

  /** The ISP's DNS resolver, and the LAN client asking the router's resolver (`resolver`) all the time. */
  startDns(resolver) {
    const peers = new URL("./dns-peers.mjs", import.meta.url).pathname;
    this.spawn(this.isp, [process.execPath, peers, "upstream", ISP1.dns], "dns-upstream.log");
    this.spawn(this.lan, [process.execPath, peers, "client", resolver], "dns-client.log");
  }

  /** The TCP service the health check probes: it accepts and closes every connection. */
  startTarget() {
    const code = `require("node:net").createServer((s) => s.end()).listen(${TARGET_PORT}, "${ISP1.gateway}")`;
    this.target = this.spawn(this.isp, [process.execPath, "-e", code], "target.log");
  }

  /**
   * The target disappears in one of two ways, alternating: the listener stops (connections are refused at
   * once) or its packets are dropped (the probe times out). `up()` undoes whichever it was.
   */
  async targetDown(kind) {
    if (kind === "refuse") await stopProcess(this.target);
    else run(["ip", "netns", "exec", this.isp, "nft", "-f", "-"], { input: `table inet soakcut {\n chain in { type filter hook input priority -10; tcp dport ${TARGET_PORT} drop; }\n}\n` });
    this.down = kind;
  }

  targetUp() {
    if (this.down === "refuse") this.startTarget();
    else if (this.down === "drop") run(["ip", "netns", "exec", this.isp, "nft", "delete", "table", "inet", "soakcut"]);
    this.down = undefined;
  }

  async destroy() {
    await Promise.allSettled(this.children.map((c) => stopProcess(c)));
    this.destroySync();
  }

  destroySync() {
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    for (const ns of [...this.namespaces].reverse()) run(["ip", "netns", "del", ns], { allowFail: true });
    this.namespaces = [];
  }
}
