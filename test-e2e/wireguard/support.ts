// Two (or more) routers in their own namespaces joined by a veth underlay, each running routerd with its own
// state dir and root; WireGuard keys live in files under that root.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makeStatusView, loadConfig, type PublishedStatus } from "@routerd/api";
import type { CommandRunner, HostContext } from "@routerd/host";
import { systemRunner } from "@routerd/host";
import { readWireGuard } from "../../apps/routerd/src/core/runtime.js";
import { runtimeFrom } from "@routerd/api";
import { routerYaml, type ResourceDoc } from "../lib/config.js";
import { Netns, routerd, sh, tempDir, type Run } from "../lib/netns.js";

export const KEY_DIR = "/etc/routerd/wireguard";

export class WgRouter {
  readonly ns: Netns;
  readonly tmp = tempDir("routerd-wg-");
  readonly stateDir = join(this.tmp.dir, "state");
  readonly root = join(this.tmp.dir, "root");
  readonly configPath = join(this.tmp.dir, "router.yaml");
  resources: ResourceDoc[] = [];

  constructor(prefix: string) {
    this.ns = Netns.create(prefix);
  }

  /** A new key in the root (mode 0600), returning its public key. */
  newKey(name: string, mode = 0o600): string {
    const key = sh("wg", ["genkey"]).stdout.trim();
    this.writeKey(name, key, mode);
    return sh("wg", ["pubkey"], { input: `${key}\n` }).stdout.trim();
  }

  /** A new preshared key in the root (mode 0600), returning it (for the other side's file). */
  newPresharedKey(name: string): string {
    const key = sh("wg", ["genpsk"]).stdout.trim();
    this.writeKey(name, key);
    return key;
  }

  writeKey(name: string, key: string, mode = 0o600): void {
    const path = join(this.root, KEY_DIR, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${key}\n`, { mode });
    chmodSync(path, mode);
  }

  keyText(name: string): string {
    return readFileSync(join(this.root, KEY_DIR, name), "utf8").trim();
  }

  routerd(args: string[]): Run {
    return routerd(this.ns, args, { stateDir: this.stateDir, root: this.root });
  }

  reconcile(resources = this.resources, extra: string[] = []): Run {
    this.resources = resources;
    writeFileSync(this.configPath, routerYaml(resources));
    return this.routerd(["reconcile", "--once", "--config", this.configPath, ...extra]);
  }

  /** `wg show <ifname> dump` peer lines as objects. */
  peers(ifname: string): { publicKey: string; endpoint: string; allowedIPs: string; handshake: number; rx: number; tx: number }[] {
    const lines = this.ns.exec("wg", ["show", ifname, "dump"]).stdout.trim().split("\n").slice(1).filter(Boolean);
    return lines.map((l) => {
      const [publicKey, , endpoint, allowedIPs, handshake, rx, tx] = l.split("\t") as string[];
      return { publicKey: publicKey!, endpoint: endpoint!, allowedIPs: allowedIPs!, handshake: Number(handshake), rx: Number(rx), tx: Number(tx) };
    });
  }

  /** The host facts routerd reads for status, read inside this namespace. */
  host(): HostContext {
    const runner: CommandRunner = { run: (cmd, args, opts) => systemRunner.run("ip", ["netns", "exec", this.ns.name, cmd, ...args], opts) };
    return { root: this.root, stateDir: this.stateDir, runDir: join(this.stateDir, "run"), runner };
  }

  /** What a resource publishes now (status fields for *From and when), from the real devices. */
  async published(id: string): Promise<PublishedStatus & { phase?: string }> {
    const config = loadConfig(routerYaml(this.resources), "router.yaml").config!;
    const wireguard = await readWireGuard(this.host());
    return makeStatusView({ config, runtime: runtimeFrom({ wireguard }) }).published(id);
  }

  destroy(): void {
    // wireguard-go holds its tun device open: it outlives a deleted namespace unless it is stopped first.
    const pids = sh("ip", ["netns", "pids", this.ns.name], { allowFail: true }).stdout.split("\n").filter(Boolean);
    for (const pid of pids) sh("kill", [pid], { allowFail: true });
    this.ns.destroy();
    this.tmp.cleanup();
  }
}

/** Pings from a namespace; true when at least one reply came back. */
export function pings(ns: Netns, address: string, count = 3): boolean {
  return ns.exec("ping", ["-c", String(count), "-W", "1", "-i", "0.2", address], { allowFail: true }).code === 0;
}
