// WireGuard devices in this network namespace and their peers, from `ip -d -j link` (which devices, which
// backend) and `wg show <ifname> dump` (keys, ports, peers). Private and preshared keys are read by `wg` and
// dropped here: only public keys and fingerprints leave this module.
import { existsSync } from "node:fs";
import { artifactNames, type ObservedArtifact } from "@routerd/resource";
import type { HostContext } from "../context.js";
import { CommandError, runJson } from "../exec.js";
import { keyFingerprint } from "../wireguard/keys.js";

/** wireguard-go's UAPI sockets (fixed by wireguard-go and wg; not per network namespace). */
export const WIREGUARD_GO_SOCKET_DIR = "/var/run/wireguard";

export interface WireGuardPeerState {
  publicKey: string;
  presharedKeyFingerprint?: string;
  endpoint?: string;
  allowedIPs: string[];
  latestHandshake?: string;
  transferRxBytes: number;
  transferTxBytes: number;
  persistentKeepalive: number;
}

export interface WireGuardDeviceState {
  ifname: string;
  backend: "kernel" | "wireguard-go";
  publicKey?: string;
  listenPort?: number;
  fwmark?: number;
  peers: WireGuardPeerState[];
}

interface IpLinkDetail {
  ifname: string;
  linkinfo?: { info_kind?: string };
}

const none = (v: string | undefined) => v === undefined || v === "(none)" || v === "off" || v === "";

/** Parses `wg show <ifname> dump` (the interface line, then one line per peer). Keys are discarded. */
export function parseWgDump(ifname: string, backend: WireGuardDeviceState["backend"], text: string): WireGuardDeviceState {
  const [head, ...peerLines] = text.split("\n").filter((l) => l.trim() !== "");
  const h = (head ?? "").split("\t");
  const device: WireGuardDeviceState = { ifname, backend, peers: [] };
  if (!none(h[1])) device.publicKey = h[1];
  if (!none(h[2]) && Number(h[2]) > 0) device.listenPort = Number(h[2]);
  if (!none(h[3])) device.fwmark = Number(h[3]);
  for (const line of peerLines) {
    const [publicKey, psk, endpoint, allowed, handshake, rx, tx, keepalive] = line.split("\t");
    if (!publicKey) continue;
    const peer: WireGuardPeerState = {
      publicKey,
      allowedIPs: none(allowed) ? [] : allowed!.split(",").sort(),
      transferRxBytes: Number(rx ?? 0),
      transferTxBytes: Number(tx ?? 0),
      persistentKeepalive: none(keepalive) ? 0 : Number(keepalive),
    };
    if (!none(psk)) peer.presharedKeyFingerprint = keyFingerprint(psk!);
    if (!none(endpoint)) peer.endpoint = endpoint;
    if (Number(handshake) > 0) peer.latestHandshake = new Date(Number(handshake) * 1000).toISOString();
    device.peers.push(peer);
  }
  return device;
}

/** The backend of a link, or undefined when it is no WireGuard device (a tun without wireguard-go's socket). */
function backendOf(link: IpLinkDetail): WireGuardDeviceState["backend"] | undefined {
  const kind = link.linkinfo?.info_kind;
  if (kind === "wireguard") return "kernel";
  if (kind === "tun" && existsSync(`${WIREGUARD_GO_SOCKET_DIR}/${link.ifname}.sock`)) return "wireguard-go";
  return undefined;
}

/** Every WireGuard device of this namespace. Fails (unknown, never empty) when `wg` cannot read one. */
export async function observeWireGuardDevices(ctx: HostContext): Promise<WireGuardDeviceState[]> {
  const links = await runJson<IpLinkDetail[]>(ctx.runner, "ip", ["-d", "-j", "link", "show"]);
  const devices = links.flatMap((l) => {
    const backend = backendOf(l);
    return backend ? [{ ifname: l.ifname, backend }] : [];
  });
  return Promise.all(
    devices.map(async ({ ifname, backend }) => {
      const r = await ctx.runner.run("wg", ["show", ifname, "dump"]);
      if (r.code !== 0) throw new CommandError(`wg show ${ifname} dump`, undefined, r.stderr.trim() || `exit ${r.code}`);
      return parseWgDump(ifname, backend, r.stdout);
    }),
  );
}

/** The same devices as artifacts: `wireguard.device` per device, `wireguard.peer` per peer. */
export function wireGuardArtifacts(devices: readonly WireGuardDeviceState[]): ObservedArtifact[] {
  return devices.flatMap((d) => [
    {
      kind: "wireguard.device" as const,
      name: d.ifname,
      attributes: { ifname: d.ifname, backend: d.backend, ...(d.publicKey ? { publicKey: d.publicKey } : {}), ...(d.listenPort !== undefined ? { listenPort: d.listenPort } : {}), ...(d.fwmark !== undefined ? { fwmark: d.fwmark } : {}) },
    },
    ...d.peers.map((p) => ({
      kind: "wireguard.peer" as const,
      name: artifactNames.wireguardPeer(d.ifname, p.publicKey),
      attributes: {
        ifname: d.ifname,
        publicKey: p.publicKey,
        allowedIPs: p.allowedIPs,
        endpoint: p.endpoint ?? "",
        persistentKeepalive: p.persistentKeepalive,
        ...(p.presharedKeyFingerprint ? { presharedKeyFingerprint: p.presharedKeyFingerprint } : {}),
        ...(p.latestHandshake ? { latestHandshake: p.latestHandshake } : {}),
        transferRxBytes: p.transferRxBytes,
        transferTxBytes: p.transferTxBytes,
      },
    })),
  ]);
}
