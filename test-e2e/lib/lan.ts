// Hosts (namespaces) on one bridge in a switch namespace: the VirtualAddress and ClusterNetworkRoute tests.
// Unique namespace names and subnets per run; everything goes in destroy().
import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { res, routerYaml, type ResourceDoc } from "./config.js";
import { Netns, tempDir } from "./netns.js";

export interface LanHost {
  ns: Netns;
  ifname: string;
  address: string;
  address6: string;
  dir: string;
  dirs: { stateDir: string; runDir: string; root: string };
  config: string;
}

export class LanLab {
  readonly tmp = tempDir("routerd-lan-");
  readonly sw = Netns.create("lan-sw");
  /** 10.<n>.<m>.0/24 and 2001:db8:<n><m>::/64, unlikely to be shared by two runs. */
  readonly net = `10.${randomInt(100, 200)}.${randomInt(1, 250)}`;
  readonly net6 = `2001:db8:${randomInt(0x100, 0xfff).toString(16)}:`;
  readonly hosts: LanHost[] = [];

  constructor() {
    this.sw.ip("link add br0 type bridge");
    this.sw.ip("link set br0 up");
  }

  /** A namespace with one port on the bridge, addressed .<host> / ::<host>. */
  add(prefix: string, host: number): LanHost {
    const ns = Netns.create(prefix);
    const ifname = "lan0";
    const port = `p${this.hosts.length}`;
    ns.veth(ifname, port, this.sw);
    this.sw.ip(`link set ${port} master br0 up`);
    ns.ip(`link set ${ifname} up`);
    const address = `${this.net}.${host}`;
    const address6 = `${this.net6}:${host.toString(16)}`;
    ns.ip(`addr add ${address}/24 dev ${ifname}`);
    ns.ip(`addr add ${address6}/64 dev ${ifname} nodad`);
    const dir = join(this.tmp.dir, ns.name);
    mkdirSync(dir, { recursive: true });
    const h: LanHost = { ns, ifname, address, address6, dir, dirs: { stateDir: join(dir, "state"), runDir: join(dir, "run"), root: join(dir, "root") }, config: join(dir, "router.yaml") };
    this.hosts.push(h);
    return h;
  }

  static writeConfig(h: LanHost, resources: ResourceDoc[]): void {
    writeFileSync(h.config, routerYaml([res("Interface", "lan", { ifname: h.ifname, managed: false }), ...resources]));
  }

  /** The MAC a neighbour has for `address`, or undefined (no entry, or FAILED/INCOMPLETE). */
  static neighbour(from: LanHost, address: string): string | undefined {
    const out = from.ns.ip(`neigh show ${address} dev ${from.ifname}`, true).stdout;
    return /lladdr ([0-9a-f:]+)/.exec(out)?.[1];
  }

  static mac(h: LanHost): string {
    return /link\/ether ([0-9a-f:]+)/.exec(h.ns.ip(`link show ${h.ifname}`).stdout)![1]!;
  }

  static hasAddress(h: LanHost, address: string): boolean {
    return h.ns.ip(`-o addr show dev ${h.ifname}`).stdout.includes(` ${address}/`);
  }

  /**
   * Resolves with the time `address` is added on `h` (from `ip monitor`, not by polling: failover times are
   * measured to the kernel event). Call before causing the change.
   */
  static addressAdded(h: LanHost, address: string, timeoutMs: number): Promise<number> {
    const mon = spawn("ip", ["-n", h.ns.name, "-o", "monitor", "address"], { stdio: ["ignore", "pipe", "ignore"] });
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        mon.kill();
        reject(new Error(`${address} was not added on ${h.ns.name} within ${timeoutMs} ms`));
      }, timeoutMs);
      mon.stdout!.on("data", (chunk: Buffer) => {
        if (chunk.toString().split("\n").some((l) => !l.startsWith("Deleted") && l.includes(` ${address}/`))) {
          clearTimeout(timer);
          mon.kill();
          resolve(Date.now());
        }
      });
    });
  }

  destroy(): void {
    for (const h of this.hosts) h.ns.destroy();
    this.sw.destroy();
    this.tmp.cleanup();
  }
}
