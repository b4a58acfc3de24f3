// A router with two uplinks to two ISP namespaces (each also answers as the "internet" address 100.64.0.1)
// and one LAN client. Counters in each ISP say which uplink carried a packet. Plain JS so that both the
// e2e test (test-e2e/serve/failover.test.ts) and the benchmark (bench/failover/run.mjs) use the same topology.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const INTERNET = "100.64.0.1";

function run(cmd, args, input = "", allowFail = false) {
  const r = spawnSync(cmd, args, { encoding: "utf8", input });
  if (!allowFail && r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr}`);
  return r;
}

class Ns {
  constructor(prefix) {
    this.name = `${prefix}-${randomBytes(3).toString("hex")}`;
    run("ip", ["netns", "add", this.name]);
    this.ip("link set lo up");
    this.exec("sysctl", ["-qw", "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0"]);
  }
  ip(args, allowFail = false) {
    return run("ip", ["-n", this.name, ...args.split(" ")], "", allowFail);
  }
  exec(cmd, args, input = "", allowFail = false) {
    return run("ip", ["netns", "exec", this.name, cmd, ...args], input, allowFail);
  }
  destroy() {
    run("ip", ["netns", "del", this.name], "", true);
  }
}

const res = (apiVersion, kind, name, spec) => ({ apiVersion, kind, metadata: { name }, spec });
const NET = "net.routerd.net/v1alpha1";

export class TwoUplinks {
  constructor() {
    this.tmp = mkdtempSync(join(tmpdir(), "routerd-uplinks-"));
    this.dirs = { stateDir: join(this.tmp, "state"), runDir: join(this.tmp, "run"), root: join(this.tmp, "root") };
    this.config = join(this.tmp, "router.yaml");
    this.namespaces = [];
    try {
      this.router = this.ns("rd-fo-r");
      this.isp1 = this.ns("rd-fo-a");
      this.isp2 = this.ns("rd-fo-b");
      this.lan = this.ns("rd-fo-l");
      this.setup();
    } catch (err) {
      this.destroy();
      throw err;
    }
  }

  ns(prefix) {
    const n = new Ns(prefix);
    this.namespaces.push(n);
    return n;
  }

  setup() {
    for (const [a, b, peer] of [["wan1", "up1", this.isp1], ["wan2", "up2", this.isp2], ["lan0", "cl0", this.lan]]) {
      this.router.ip(`link add ${a} type veth peer name ${b}`);
      this.router.ip(`link set ${b} netns ${peer.name}`);
    }
    for (const [ns, dev, addr] of [[this.isp1, "up1", "198.51.100.1/30"], [this.isp2, "up2", "203.0.113.1/30"]]) {
      ns.ip(`addr add ${addr} dev ${dev}`);
      ns.ip(`link set ${dev} up`);
      ns.ip(`addr add ${INTERNET}/32 dev lo`);
      ns.exec("nft", ["-f", "-"], `table inet count {\n chain in {\n  type filter hook input priority 0; policy accept;\n  ip daddr ${INTERNET} icmp type echo-request counter\n }\n}\n`);
    }
    this.lan.ip("addr add 10.10.0.10/24 dev cl0");
    this.lan.ip("link set cl0 up");
    this.lan.ip("route add default via 10.10.0.1");
  }

  /** interval, thresholds and failbackDelay are the knobs the test and the benchmark turn. */
  writeConfig({ failbackDelay = "3s", interval = "1s", timeout = "500ms", unhealthyThreshold = 2, healthyThreshold = 2 } = {}) {
    const hc = (name, target, iface) => res(NET, "HealthCheck", name, { type: "icmp", target, interface: iface, interval, timeout, healthyThreshold, unhealthyThreshold });
    const resources = [
      res(NET, "Interface", "isp1", { ifname: "wan1" }),
      res(NET, "Interface", "isp2", { ifname: "wan2" }),
      res(NET, "Interface", "lan", { ifname: "lan0" }),
      res(NET, "IPv4StaticAddress", "isp1-address", { interface: "isp1", address: "198.51.100.2/30" }),
      res(NET, "IPv4StaticAddress", "isp2-address", { interface: "isp2", address: "203.0.113.2/30" }),
      res(NET, "IPv4StaticAddress", "lan-address", { interface: "lan", address: "10.10.0.1/24" }),
      res("system.routerd.net/v1alpha1", "SysctlProfile", "router", { profile: "router-linux" }),
      hc("isp1-up", "198.51.100.1", "isp1"),
      hc("isp2-up", "203.0.113.1", "isp2"),
      res(NET, "IPAddressSet", "lan-clients", { addresses: ["10.10.0.0/24"] }),
      res(NET, "EgressRoutePolicy", "internet", {
        sourceSet: "lan-clients",
        failbackDelay,
        candidates: [
          { name: "isp1", interface: "isp1", gateway: "198.51.100.1", table: 101, mark: "0x101", priority: 1101, weight: 200, healthCheck: "isp1-up" },
          { name: "isp2", interface: "isp2", gateway: "203.0.113.1", table: 102, mark: "0x102", priority: 1102, weight: 100, healthCheck: "isp2-up" },
        ],
      }),
      res(NET, "NAT44Rule", "isp1-masq", { egressInterface: "isp1", sourceSet: "lan-clients" }),
      res(NET, "NAT44Rule", "isp2-masq", { egressInterface: "isp2", sourceSet: "lan-clients" }),
    ];
    writeFileSync(this.config, JSON.stringify({ apiVersion: "routerd.net/v1alpha1", kind: "Router", metadata: { name: "two-uplinks" }, spec: { resources } }, null, 2));
  }

  /** Echo requests each ISP has received for the internet address so far. */
  counts() {
    const read = (ns) => Number(/packets (\d+)/.exec(ns.exec("nft", ["list", "table", "inet", "count"]).stdout)?.[1] ?? 0);
    return [read(this.isp1), read(this.isp2)];
  }

  /** Which uplink carries a new connection now (every ping process has its own ICMP id): 1, 2, or 0. */
  currentUplink(waitSeconds = "1") {
    const [a0, b0] = this.counts();
    this.lan.exec("ping", ["-n", "-c", "1", "-W", waitSeconds, INTERNET], "", true);
    const [a1, b1] = this.counts();
    return a1 > a0 ? 1 : b1 > b0 ? 2 : 0;
  }

  /** The uplink dies: its ISP drops everything (the link stays up, like a dead upstream). */
  cut(isp) {
    (isp === 1 ? this.isp1 : this.isp2).exec("nft", ["-f", "-"], "table inet cut {\n chain in { type filter hook input priority -10; policy drop; }\n}\n");
  }

  heal(isp) {
    (isp === 1 ? this.isp1 : this.isp2).exec("nft", ["delete", "table", "inet", "cut"]);
  }

  destroy() {
    for (const ns of this.namespaces) ns.destroy();
    rmSync(this.tmp, { recursive: true, force: true });
  }
}
