// WireGuard between two routers in namespaces, on wireguard-go (this kernel has no wireguard module):
// tunnel up and traffic across, a peer added without disturbing the existing session, key rotation, a
// foreign wg link left alone, and removal of exactly what routerd created.
import { existsSync, readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { res, type ResourceDoc } from "../lib/config.js";
import { randomBytes } from "node:crypto";
import { KEY_DIR, WgRouter, pings } from "./support.js";

let a: WgRouter;
let b: WgRouter;
let wgA: string;
let wgB: string;
let pubA: string;
let pubB: string;

function configA(peerB: string, extra: ResourceDoc[] = []): ResourceDoc[] {
  return [
    res("WireGuardInterface", "tun", { ifname: wgA, listenPort: 51820, privateKeyFile: `${KEY_DIR}/a.key` }),
    res("IPv4StaticAddress", "tun-address", { interface: "tun", address: "10.77.0.1/24" }),
    res("WireGuardPeer", "site-b", { interface: "tun", publicKey: peerB, allowedIPs: ["10.77.0.2/32", "10.78.2.0/24"], endpoint: "192.0.2.2:51820", presharedKeyFile: `${KEY_DIR}/ab.psk`, routeAllowedIPs: true }),
    ...extra,
  ];
}

function configB(peerA: string): ResourceDoc[] {
  return [
    res("WireGuardInterface", "tun", { ifname: wgB, listenPort: 51820, privateKeyFile: `${KEY_DIR}/b.key` }),
    res("IPv4StaticAddress", "tun-address", { interface: "tun", address: "10.77.0.2/24" }),
    res("WireGuardPeer", "site-a", { interface: "tun", publicKey: peerA, allowedIPs: ["10.77.0.1/32"], endpoint: "192.0.2.1:51820", presharedKeyFile: `${KEY_DIR}/ab.psk`, persistentKeepalive: 1 }),
  ];
}

beforeEach(() => {
  a = new WgRouter("rd-wga");
  b = new WgRouter("rd-wgb");
  // Names of wireguard-go's sockets are global (/var/run/wireguard): unique per run.
  const id = randomBytes(3).toString("hex");
  wgA = `wga${id}`;
  wgB = `wgb${id}`;
  a.ns.veth("u0", "u1", b.ns);
  a.ns.ip("addr add 192.0.2.1/24 dev u0");
  a.ns.ip("link set u0 up");
  b.ns.ip("addr add 192.0.2.2/24 dev u1");
  b.ns.ip("link set u1 up");
  pubA = a.newKey("a.key");
  pubB = b.newKey("b.key");
  // The same preshared key on both sides (a mismatch would stop the handshake).
  b.writeKey("ab.psk", a.newPresharedKey("ab.psk"));
});

afterEach(() => {
  a?.destroy();
  b?.destroy();
});

// wireguard-go makes its host-wide socket dir when it first runs: leave the host as this file found it. rmdir
// removes only an empty dir, so another run's live sockets (another test file, a lab) are never touched.
const WG_RUN_DIR = "/var/run/wireguard";
const wgRunDirExisted = existsSync(WG_RUN_DIR);
afterAll(() => {
  if (wgRunDirExisted) return;
  try {
    rmdirSync(WG_RUN_DIR);
  } catch {
    // not empty (someone else's wireguard-go is running) or already gone
  }
});

describe("WireGuard on wireguard-go between two routers", () => {
  it("brings the tunnel up, carries traffic, reports status, and is idempotent; keys never leave their files", async () => {
    const ra = a.reconcile(configA(pubB));
    expect(ra.stderr).toBe("");
    expect(ra.code).toBe(0);
    expect(b.reconcile(configB(pubA)).code).toBe(0);

    expect(a.ns.ip(`-d link show ${wgA}`).stdout).toMatch(/tun type tun/);
    expect(a.ns.ip(`addr show ${wgA}`).stdout).toContain("inet 10.77.0.1/24");
    expect(a.ns.ip("route show").stdout).toContain(`10.78.2.0/24 dev ${wgA}`);
    expect(pings(a.ns, "10.77.0.2")).toBe(true);
    // Keepalive as configured: B keeps the session alive every second, A (not set) never does.
    expect(b.ns.exec("wg", ["show", wgB, "persistent-keepalive"]).stdout.trim()).toBe(`${pubA}\t1`);
    expect(a.ns.exec("wg", ["show", wgA, "persistent-keepalive"]).stdout.trim()).toBe(`${pubB}\toff`);

    const peer = (await a.published("WireGuardPeer/site-b"));
    expect(peer.phase).toBe("Connected");
    expect(peer.fields).toMatchObject({ latestEndpoint: "192.0.2.2:51820", transferRxBytes: expect.any(Number), transferTxBytes: expect.any(Number), handshakeAgeSeconds: expect.any(Number) });
    expect(Number(peer.fields.transferRxBytes)).toBeGreaterThan(0);
    expect(Date.parse(String(peer.fields.latestHandshake))).toBeGreaterThan(Date.now() - 60_000);
    const dev = await a.published("WireGuardInterface/tun");
    expect(dev.fields).toEqual({ publicKey: pubA, listenPort: 51820, fwmark: 0, peerCount: 1, backend: "wireguard-go" });

    // Nothing to do the second time; the plan shows the public key as the private key's fingerprint.
    const again = a.routerd(["plan", "--json", "--detailed-exitcode", "--config", a.configPath]);
    expect(again.code).toBe(0);
    const privateA = a.keyText("a.key");
    const psk = a.keyText("ab.psk");
    expect(a.ns.exec("wg", ["show", wgA, "preshared-keys"]).stdout).toContain(psk);
    const outputs = [again.stdout, ra.stdout, ra.stderr, readFileSync(join(a.stateDir, "artifacts.json"), "utf8"), readFileSync(join(a.stateDir, "status.json"), "utf8")];
    for (const secret of [privateA, psk]) for (const text of outputs) expect(text).not.toContain(secret);
    expect(readFileSync(join(a.stateDir, "artifacts.json"), "utf8")).toContain(pubA);
  });

  it("adds a peer without disturbing the existing session", () => {
    expect(a.reconcile(configA(pubB)).code).toBe(0);
    expect(b.reconcile(configB(pubA)).code).toBe(0);
    expect(pings(a.ns, "10.77.0.2")).toBe(true);
    const before = a.peers(wgA).find((p) => p.publicKey === pubB)!;
    expect(before.handshake).toBeGreaterThan(0);

    const pubC = a.newKey("c-unused.key");
    const r = a.reconcile(configA(pubB, [res("WireGuardPeer", "site-c", { interface: "tun", publicKey: pubC, allowedIPs: ["10.77.0.3/32"] })]), ["--json"]);
    expect(r.code).toBe(0);
    const planned = JSON.parse(r.stdout) as { summary: Record<string, number>; resources: { id: string; artifacts: { kind: string; change: string }[] }[] };
    expect(planned.summary).toMatchObject({ create: 1, update: 0, delete: 0 });
    const after = a.peers(wgA).find((p) => p.publicKey === pubB)!;
    // Same session: the handshake did not restart and the counters kept counting (a re-added peer starts at 0).
    expect(after.handshake).toBe(before.handshake);
    expect(after.rx).toBeGreaterThanOrEqual(before.rx);
    expect(after.tx).toBeGreaterThanOrEqual(before.tx);
    expect(a.peers(wgA).map((p) => p.publicKey).sort()).toEqual([pubB, pubC].sort());
    expect(pings(a.ns, "10.77.0.2", 1)).toBe(true);
  });

  it("rotates a key: the new public key shows in the plan and the tunnel comes back with it", async () => {
    expect(a.reconcile(configA(pubB)).code).toBe(0);
    expect(b.reconcile(configB(pubA)).code).toBe(0);
    expect(pings(a.ns, "10.77.0.2")).toBe(true);

    const newA = a.newKey("a.key");
    const plan = a.routerd(["plan", "--json", "--config", a.configPath]);
    const adopted = JSON.parse(plan.stdout) as { resources: { id: string; artifacts: { kind: string; change: string; differences?: { field: string; desired: unknown; observed: unknown }[] }[] }[] };
    const device = adopted.resources.find((r) => r.id === "WireGuardInterface/tun")!.artifacts.find((x) => x.kind === "wireguard.device")!;
    expect(device.change).toBe("update");
    expect(device.differences).toEqual([{ field: "publicKey", desired: newA, observed: pubA }]);
    expect(plan.stdout).not.toContain(a.keyText("a.key"));

    expect(a.reconcile(configA(pubB)).code).toBe(0);
    expect(b.reconcile(configB(newA)).code).toBe(0);
    expect(pings(a.ns, "10.77.0.2")).toBe(true);
    expect((await a.published("WireGuardInterface/tun")).fields.publicKey).toBe(newA);
  });

  it("refuses a key file others can read, and a wg link routerd did not create; removal removes only its own", () => {
    // A key readable by others: a clear error, nothing created.
    a.newKey("a.key", 0o644);
    const bad = a.reconcile(configA(pubB));
    expect(bad.code).not.toBe(0);
    expect(bad.stdout + bad.stderr).toMatch(/readable by others \(mode 0644\): chmod 600/);
    expect(a.ns.ip(`link show ${wgA}`, true).code).not.toBe(0);
    pubA = a.newKey("a.key");

    // Someone else's WireGuard device under the name routerd wants: left exactly as it is.
    a.ns.exec("wireguard-go", [wgA]);
    const foreign = a.reconcile(configA(pubB), ["--json"]);
    expect(foreign.code).toBe(0);
    const p = JSON.parse(foreign.stdout) as { resources: { id: string; artifacts: { kind: string; change: string; reason?: string }[] }[] };
    const dev = p.resources.find((r) => r.id === "WireGuardInterface/tun")!.artifacts.find((x) => x.kind === "wireguard.device")!;
    expect(dev).toMatchObject({ change: "unknown", reason: expect.stringMatching(/routerd did not create it/) });
    expect(a.peers(wgA)).toEqual([]);
    expect(a.ns.exec("wg", ["show", wgA, "private-key"]).stdout.trim()).toBe("(none)");
    expect(a.ns.ip(`addr show ${wgA}`).stdout).not.toContain("10.77.0.1");
    expect(a.ns.ip(`link show ${wgA}`).stdout).not.toContain(",UP");
    a.ns.ip(`link del ${wgA}`);

    // routerd's own device next to another foreign one; removing the config removes only routerd's.
    const other = `wgx${wgA.slice(3)}`;
    a.ns.exec("wireguard-go", [other]);
    expect(a.reconcile(configA(pubB)).code).toBe(0);
    expect(a.ns.ip(`link show ${wgA}`).code).toBe(0);
    const removed = a.reconcile([res("IPv4StaticAddress", "keep", { interface: "keep", address: "192.0.2.1/24" }), res("Interface", "keep", { ifname: "u0" })]);
    expect(removed.code).toBe(0);
    expect(a.ns.ip(`link show ${wgA}`, true).code).not.toBe(0);
    expect(a.ns.ip(`link show ${other}`).code).toBe(0);
    const ledger = JSON.parse(readFileSync(join(a.stateDir, "artifacts.json"), "utf8")) as { entries: { kind: string }[] };
    expect(ledger.entries.filter((e) => e.kind.startsWith("wireguard."))).toEqual([]);
    a.ns.ip(`link del ${other}`);
  });
});
