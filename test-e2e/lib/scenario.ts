// A router namespace with a WAN and a LAN veth, and a config that uses every host-facing Foundation kind.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { res, routerYaml, type ResourceDoc } from "./config.js";
import { Netns, routerd, tempDir, type Run } from "./netns.js";

export function fullResources(): ResourceDoc[] {
  return [
    res("Interface", "wan", { ifname: "wan0" }),
    res("Interface", "lan", { ifname: "lan0", mtu: 1400 }),
    res("Interface", "wan2", { ifname: "wan2" }),
    res("IPv4StaticAddress", "wan-address", { interface: "wan", address: "203.0.113.2/24" }),
    res("IPv4StaticAddress", "wan2-address", { interface: "wan2", address: "198.51.100.2/24" }),
    res("IPv4StaticAddress", "lan-address", { interface: "lan", address: "192.168.50.1/24" }),
    res("IPv4Route", "default", { destination: "default", gateway: "203.0.113.1", device: "wan" }),
    res("IPv4Route", "lab-net", { destination: "10.20.0.0/16", gateway: "192.168.50.254", table: 100 }),
    res("IPv4Route", "sinkhole", { destination: "10.66.0.0/16", type: "blackhole", metric: 10 }),
    res("SysctlProfile", "router", { profile: "router-linux" }),
    res("Sysctl", "martians", { key: "net.ipv4.conf.all.log_martians", value: 1, persistent: true }),
    res("IPAddressSet", "lan-clients", { addresses: ["192.168.50.0/24"] }),
    res("NAT44Rule", "masq", { egressInterface: "wan", sourceSet: "lan-clients" }),
    res("PortForward", "web", { listen: { interface: "wan", protocol: "tcp", port: 8080 }, target: { address: "192.168.50.10", port: 80 }, hairpin: { enabled: true } }),
    res("FirewallZone", "outside", { role: "untrust", interfaces: ["wan", "wan2"] }),
    res("FirewallZone", "inside", { role: "trust", interfaces: ["lan"] }),
    res("FirewallPolicy", "default", { defaultInput: "drop", defaultForward: "drop" }),
    res("FirewallRule", "lan-out", { fromZone: "inside", toZone: "outside", action: "accept" }),
    res("FirewallRule", "lan-ssh", { fromZone: "inside", toZone: "self", protocol: "tcp", port: 22, action: "accept" }),
    res("EgressRoutePolicy", "uplinks", {
      sourceSet: "lan-clients",
      candidates: [
        { name: "one", interface: "wan", gateway: "203.0.113.1", table: 101, mark: "0x101", priority: 1101, weight: 200 },
        { name: "two", interface: "wan2", gateway: "198.51.100.1", table: 102, mark: "0x102", priority: 1102, weight: 100 },
      ],
    }),
  ];
}

export class RouterScenario {
  readonly ns: Netns;
  readonly tmp = tempDir();
  readonly stateDir: string;
  readonly root: string;
  readonly configPath: string;

  constructor() {
    this.ns = Netns.create("rd-rec");
    for (const [a, b] of [["wan0", "wan0p"], ["wan2", "wan2p"], ["lan0", "lan0p"]] as const) {
      this.ns.veth(a, b);
      this.ns.ip(`link set ${b} up`);
    }
    this.stateDir = join(this.tmp.dir, "state");
    this.root = join(this.tmp.dir, "root");
    this.configPath = join(this.tmp.dir, "router.yaml");
  }

  writeConfig(resources: ResourceDoc[]): string {
    writeFileSync(this.configPath, routerYaml(resources));
    return this.configPath;
  }

  routerd(args: string[], env?: NodeJS.ProcessEnv): Run {
    return routerd(this.ns, args, { stateDir: this.stateDir, root: this.root, ...(env ? { env } : {}) });
  }

  reconcile(resources: ResourceDoc[], extra: string[] = []): Run {
    return this.routerd(["reconcile", "--once", "--config", this.writeConfig(resources), ...extra]);
  }

  planJson(resources: ResourceDoc[], extra: string[] = []): { run: Run; plan: PlanJson } {
    const run = this.routerd(["plan", "--json", "--config", this.writeConfig(resources), ...extra]);
    return { run, plan: JSON.parse(run.stdout) as PlanJson };
  }

  destroy(): void {
    this.ns.destroy();
    this.tmp.cleanup();
  }
}

export interface PlanJson {
  resources: { id: string; state: string; artifacts: { kind: string; name: string; change: string; action: string }[] }[];
  orphans: { kind: string; name: string }[];
  adoptionCandidates: { kind: string; name: string; owner: string; reason: string; desired: Record<string, unknown>; observed: Record<string, unknown> }[];
  lookAlikes: { kind: string; name: string }[];
  unknownKinds: { kind: string; reason: string }[];
  summary: { create: number; update: number; unchanged: number; delete: number; unknown: number };
}

export function changes(plan: PlanJson, change: string): string[] {
  return [...new Set(plan.resources.flatMap((r) => r.artifacts.filter((a) => a.change === change).map((a) => `${a.kind} ${a.name}`)))].sort();
}
