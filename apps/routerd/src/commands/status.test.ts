// `routerd status` reads the namespace's WireGuard devices: a WireGuardInterface shows which backend carries
// it (kernel or wireguard-go) and a WireGuardPeer its handshake and counters, as `wg show dump` gives them.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type RouterConfig } from "@routerd/api";
import type { CommandRunner, HostContext } from "@routerd/host";
import { afterAll, describe, expect, it } from "vitest";
import { statusReport } from "./status.js";

const PUBLIC = "+y8pKT/J3zOYQ+aF/fARjn9NoQK9EY6pA0nWj2/HGyc=";
const PEER = "R+kpv0E7+9ZfEtF0WNgYBwK3xWemo6L7sQ+YHZWIuGY=";
const dir = mkdtempSync(join(tmpdir(), "rd-status-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function config(): RouterConfig {
  const net = "net.routerd.net/v1alpha1";
  const resources = [
    { apiVersion: net, kind: "WireGuardInterface", metadata: { name: "tun" }, spec: { ifname: "wg0", listenPort: 51820, privateKeyFile: "/etc/routerd/wireguard/a.key" } },
    { apiVersion: net, kind: "WireGuardPeer", metadata: { name: "b" }, spec: { interface: "tun", publicKey: PEER, allowedIPs: ["10.77.0.2/32"], endpoint: "192.0.2.2:51820" } },
  ];
  const r = loadConfig(JSON.stringify({ apiVersion: "routerd.net/v1alpha1", kind: "Router", metadata: { name: "t" }, spec: { resources } }), "t.yaml");
  if (!r.config) throw new Error(JSON.stringify(r.issues));
  return r.config;
}

/** A host whose only WireGuard device is the kernel's wg0 with one peer that has shaken hands. */
function host(handshake: number): HostContext {
  const answers: Record<string, string> = {
    "ip -d -j link show": JSON.stringify([{ ifname: "lo" }, { ifname: "wg0", linkinfo: { info_kind: "wireguard" } }]),
    "wg show wg0 dump": [`(hidden)\t${PUBLIC}\t51820\toff`, `${PEER}\t(none)\t192.0.2.2:51820\t10.77.0.2/32\t${handshake}\t1124\t1276\toff`, ""].join("\n"),
  };
  const runner: CommandRunner = {
    run: async (cmd, args) => {
      const out = answers[[cmd, ...args].join(" ")];
      return out === undefined ? { code: 1, stdout: "", stderr: `unexpected ${cmd} ${args.join(" ")}` } : { code: 0, stdout: out, stderr: "" };
    },
  };
  return { root: dir, stateDir: join(dir, "state"), runDir: join(dir, "run"), runner };
}

describe("routerd status with WireGuard", () => {
  it("shows the backend, key and port of the device and the handshake and counters of its peer", async () => {
    const handshake = Math.floor(Date.now() / 1000) - 5;
    const report = await statusReport(config(), host(handshake));
    const byId = new Map(report.map((r) => [r.id, r.status]));
    expect(byId.get("WireGuardInterface/tun")).toMatchObject({ backend: "kernel", publicKey: PUBLIC, listenPort: 51820, peerCount: 1 });
    expect(byId.get("WireGuardPeer/b")).toMatchObject({
      phase: "Connected",
      latestEndpoint: "192.0.2.2:51820",
      latestHandshake: new Date(handshake * 1000).toISOString(),
      transferRxBytes: 1124,
      transferTxBytes: 1276,
    });
    expect(Number(byId.get("WireGuardPeer/b")?.handshakeAgeSeconds)).toBeGreaterThanOrEqual(5);
  });
});
