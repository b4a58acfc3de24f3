// WireGuard on the kernel module, between two routers in one lab VM (part of links.scenarios.ts, so it runs in
// the same VM boot): routerd's derived module artifact loads `wireguard` and records it, backend auto makes a
// kernel `wireguard` link, status says so, a ping crosses the tunnel, a second peer leaves the first one's
// session alone, and removal deletes only routerd's link and unloads no module. The native-kernel e2e tier
// (test-e2e/wireguard) runs the same kinds on wireguard-go: that kernel has no wireguard module.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readLedger } from "@routerd/resource";
import type { ResourceDoc } from "../lib/config.js";
import { Lab, sh } from "../lib/lab.js";
import { until } from "../lib/serve.js";
import { moduleInPlan, Router, res } from "./lib/router.js";
import type { Scenario } from "./lib/scenarios.js";

const KEY_DIR = "/etc/routerd/wireguard";

const wireguardLoaded = () => readFileSync("/proc/modules", "utf8").split("\n").some((l) => l.startsWith("wireguard ")) || existsSync("/sys/module/wireguard");

/** A key file (mode 0600) under the router's root; returns what `wg` makes of it (the public key for a private one). */
function writeKey(r: Router, name: string, key: string): void {
  const path = join(r.root, KEY_DIR, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

function newKey(r: Router, name: string): string {
  const key = sh(["wg", "genkey"]).trim();
  writeKey(r, name, key);
  return execFileSync("wg", ["pubkey"], { input: `${key}\n`, encoding: "utf8" }).trim();
}

/** `wg show <ifname> dump` peer lines (the interface line dropped: it holds the private key). */
function peers(r: Router, ifname: string): { publicKey: string; endpoint: string; handshake: number; rx: number; tx: number }[] {
  const lines = sh(["ip", "netns", "exec", r.ns, "wg", "show", ifname, "dump"]).trim().split("\n").slice(1).filter(Boolean);
  return lines.map((l) => {
    const [publicKey, , endpoint, , handshake, rx, tx] = l.split("\t") as string[];
    return { publicKey: publicKey!, endpoint: endpoint!, handshake: Number(handshake), rx: Number(rx), tx: Number(tx) };
  });
}

/** `routerd status --json`: resource id → its published status. */
function status(r: Router): Map<string, Record<string, unknown>> {
  const out = r.routerd(["status", "--json", "--config", r.configPath]);
  if (out.code !== 0) throw new Error(`routerd status failed (${out.code}): ${out.stdout}\n${out.stderr}`);
  const report = JSON.parse(out.stdout) as { resources: { id: string; status: Record<string, unknown> }[] };
  return new Map(report.resources.map((x) => [x.id, x.status]));
}

/** One side of the tunnel: 10.77.0.<me> on wg0, the peer's endpoint on the underlay. */
function side(me: number, peer: number, peerKey: string, extra: ResourceDoc[] = []): ResourceDoc[] {
  return [
    res("Interface", "under", { ifname: "under" }),
    res("WireGuardInterface", "tun", { ifname: "wg0", listenPort: 51820, privateKeyFile: `${KEY_DIR}/self.key` }),
    res("IPv4StaticAddress", "tun-address", { interface: "tun", address: `10.77.0.${me}/24` }),
    res("WireGuardPeer", "site", { interface: "tun", publicKey: peerKey, allowedIPs: [`10.77.0.${peer}/32`], endpoint: `198.51.100.${peer}:51820`, presharedKeyFile: `${KEY_DIR}/pair.psk` }),
    ...extra,
  ];
}

export const wireGuardScenario: Scenario = {
  name: "WireGuard on the kernel module: routerd loads wireguard and records it, backend auto makes a kernel link, status says so, traffic crosses, a new peer keeps the first session, removal deletes only routerd's link",
  timeoutMs: 900_000,
  async run(ctx) {
    const lab = new Lab("wg", "kl");
    try {
      // Nothing else in this VM uses WireGuard; a module loaded before would not be routerd's to record.
      assert.equal(wireguardLoaded(), false, "wireguard is not loaded before the scenario");
      const [a, b] = [new Router(lab, "a"), new Router(lab, "b")];
      lab.veth(a.ns, "under", b.ns, "under");
      a.ip("addr", "add", "198.51.100.1/24", "dev", "under");
      b.ip("addr", "add", "198.51.100.2/24", "dev", "under");
      const [pubA, pubB] = [newKey(a, "self.key"), newKey(b, "self.key")];
      const psk = sh(["wg", "genpsk"]).trim();
      for (const r of [a, b]) writeKey(r, "pair.psk", psk);
      const configA = (extra: ResourceDoc[] = []) => side(1, 2, pubB, extra);

      // Router a: the plan shows the module to load; the reconcile loads it (before the link) and records it.
      assert.equal(moduleInPlan(a.plan(configA()).text, "wireguard"), "WireGuardInterface/tun wireguard create", "plan shows the module to load");
      a.apply(configA());
      assert.equal(wireguardLoaded(), true, "routerd loaded wireguard");
      const entry = readLedger(a.stateDir).get("linux.kernelModule", "wireguard");
      ctx.log(`a's ledger: ${JSON.stringify(entry)}`);
      assert.equal(entry?.ownership, "created", "a's ledger records that routerd loaded wireguard");
      ctx.log(a.ip("-d", "link", "show", "wg0"));
      assert.equal(a.links().get("wg0"), "wireguard", "backend auto made a kernel wireguard link");

      // Router b finds the module loaded (by a): it uses it and never records it as its own.
      b.apply(side(2, 1, pubA));
      assert.equal(b.links().get("wg0"), "wireguard");
      assert.equal(readLedger(b.stateDir).get("linux.kernelModule", "wireguard"), undefined, "b did not load wireguard, so b's ledger has no entry for it");

      await until("a ping from a to b across the tunnel", () => a.ping("10.77.0.2"), 60_000, 500);
      const dump = peers(a, "wg0");
      ctx.log(`a's peers: ${JSON.stringify(dump)}`);
      assert.deepEqual(dump.map((p) => [p.publicKey, p.endpoint]), [[pubB, "198.51.100.2:51820"]]);
      assert.ok(dump[0]!.handshake > 0 && dump[0]!.rx > 0 && dump[0]!.tx > 0, "the kernel reports a handshake and traffic");

      // Status, as `wg show dump` and the link's kind give it.
      const st = status(a);
      ctx.log(`a's status: ${JSON.stringify(Object.fromEntries(st))}`);
      assert.deepEqual(st.get("WireGuardInterface/tun"), { phase: "Ready", publicKey: pubA, listenPort: 51820, fwmark: 0, peerCount: 1, backend: "kernel" });
      const peer = st.get("WireGuardPeer/site")!;
      assert.equal(peer.phase, "Connected");
      assert.equal(peer.latestEndpoint, "198.51.100.2:51820");
      assert.equal(peer.latestHandshake, new Date(dump[0]!.handshake * 1000).toISOString());
      assert.ok(Number(peer.transferRxBytes) >= dump[0]!.rx && Number(peer.transferTxBytes) >= dump[0]!.tx, `counters: ${JSON.stringify(peer)}`);
      assert.equal(typeof peer.handshakeAgeSeconds, "number");
      const again = a.plan(configA());
      assert.deepEqual([again.summary.create, again.summary.update, again.summary.delete], [0, 0, 0], `nothing left to do: ${again.text}`);

      // A second peer: set on its own (`wg set … peer`), so the first peer's session goes on.
      const before = peers(a, "wg0").find((p) => p.publicKey === pubB)!;
      const pubC = newKey(a, "c-unused.key");
      const added = a.apply(configA([res("WireGuardPeer", "site-c", { interface: "tun", publicKey: pubC, allowedIPs: ["10.77.0.3/32"] })]), ["--json"]);
      const summary = (JSON.parse(added.stdout) as { summary: Record<string, number> }).summary;
      assert.deepEqual([summary.create, summary.update, summary.delete], [1, 0, 0], `only the new peer is created: ${added.stdout}`);
      const after = peers(a, "wg0");
      const first = after.find((p) => p.publicKey === pubB)!;
      ctx.log(`before ${JSON.stringify(before)} after ${JSON.stringify(first)}`);
      // A re-added peer would start with no handshake and zero counters.
      assert.equal(first.handshake, before.handshake, "same handshake: the session was not reset");
      assert.ok(first.rx >= before.rx && first.tx >= before.tx, "the counters went on");
      assert.deepEqual(after.map((p) => p.publicKey).sort(), [pubB, pubC].sort());
      assert.ok(a.ping("10.77.0.2"), "traffic still crosses");

      // Someone else's kernel WireGuard link: removal takes routerd's wg0 only, and unloads nothing.
      a.ip("link", "add", "wgx", "type", "wireguard");
      a.apply([res("Interface", "under", { ifname: "under" })]);
      const links = a.links();
      assert.equal(links.has("wg0"), false, "routerd's link is gone");
      assert.equal(links.get("wgx"), "wireguard", "the foreign WireGuard link stays");
      const left = readLedger(a.stateDir);
      const kept = [...left.values()].filter((e) => e.kind.startsWith("wireguard.") || e.kind === "linux.kernelModule" || (e.kind === "linux.link" && e.name === "wg0"));
      assert.deepEqual(kept.map((e) => `${e.kind} ${e.name}`), [], "the ledger forgot the device, its link, its peers and the module");
      // routerd never unloads a module, even one it loaded: rmmod would delete every wireguard link on the host
      // (wgx here). The ledger forgets it; unloading is the operator's (teardown-registry: linux.kernelModule).
      assert.equal(wireguardLoaded(), true, "wireguard stays loaded");
    } finally {
      await lab.cleanup();
      // The VM's own cleanup (namespaces, and with them every wireguard link, are gone).
      sh(["modprobe", "-r", "wireguard"], { allowFail: true });
    }
  },
};
