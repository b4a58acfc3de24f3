// One peer of a WireGuardInterface, applied alone (`wg set ... peer`): adding, changing or removing it never
// resets the sessions of the device's other peers. Routes for its allowedIPs only when asked.
import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { ipv4Network, parseIpv4Prefix } from "../formats.js";
import { API_GROUPS, defineKind, type ConfigView } from "../kind.js";
import { hostBits, parseIpv6Prefix } from "./ipv6-prefix.js";
import { t, type Infer } from "../schema.js";
import { wireGuardIfname, type WireGuardInterfaceSpec } from "./wireguard-interface.js";

const WG_KEY = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

/** An allowed-IPs entry as `wg` prints it: the network of an IPv4 or IPv6 prefix (IPv6 compressed). */
const allowedIP = () =>
  t.string({
    check: (v) => {
      const v4 = parseIpv4Prefix(v);
      if (v4) return ipv4Network(v4) === v4.address ? undefined : `${v} has host bits set; the network is ${ipv4Network(v4)}/${v4.length}`;
      const v6 = parseIpv6Prefix(v);
      if (v6) return hostBits(v6) === 0n ? undefined : `${v} has host bits set`;
      return `${JSON.stringify(v)} is not a prefix like 10.0.0.0/24 or fd00::/64`;
    },
    normalize: (v) => {
      const v6 = !parseIpv4Prefix(v) && parseIpv6Prefix(v);
      return v6 ? `${v6.prefix}/${v6.length}` : v;
    },
  });

/** host:port or [v6]:port. */
const ENDPOINT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

export const wireGuardPeerSpec = t.object({
  interface: t.interfaceRef().describe("the WireGuardInterface this peer belongs to"),
  publicKey: t.string({ pattern: WG_KEY, patternHint: "a base64 WireGuard public key (wg pubkey)" }),
  allowedIPs: t.array(allowedIP(), { minItems: 1, unique: true }).describe("prefixes this peer may send from and is routed to"),
  endpoint: t.optional(t.string({ pattern: ENDPOINT, patternHint: "host:port or [ipv6]:port" }).describe("where to reach the peer (omit for a peer that dials in)")),
  persistentKeepalive: t.withDefault(t.int({ min: 0, max: 65535 }).describe("seconds between keepalives (0: off)"), 0),
  presharedKeyFile: t.optional(t.string({ pattern: /^\//, patternHint: "an absolute path" }).describe("file with the base64 preshared key (wg genpsk), mode 0600")),
  presharedKey: t.optional(t.string().describe("not accepted: use presharedKeyFile")),
  routeAllowedIPs: t.withDefault(t.bool().describe("install routes for allowedIPs through the device (routerd extension)"), false),
  routeTable: t.withDefault(t.int({ min: 1, max: 4294967295 }).describe("table for those routes (254 = main)"), 254),
  routeMetric: t.withDefault(t.int({ min: 0, max: 4294967295 }), 0),
});

export type WireGuardPeerSpec = Infer<typeof wireGuardPeerSpec>;

function deviceOf(view: ConfigView, name: string) {
  return view.find<WireGuardInterfaceSpec>("WireGuardInterface", name);
}

export const wireGuardPeerKind = defineKind<WireGuardPeerSpec>({
  apiVersion: API_GROUPS.net,
  kind: "WireGuardPeer",
  description: "A peer of a WireGuardInterface: its public key, allowed IPs, endpoint, keepalive and preshared key; optionally routes for its allowed IPs.",
  class: "link",
  contract: { type: "ArtifactKinds", artifactKinds: ["wireguard.peer", "linux.ipv4.route", "linux.ipv6.route"] },
  supportsWhen: true,
  spec: wireGuardPeerSpec,
  status(res, ctx) {
    const dev = deviceOf(ctx, res.spec.interface);
    const fact = ctx.runtime.wireguard(dev ? wireGuardIfname(dev) : ctx.ifname(res.spec.interface));
    if (fact.state === "unknown") return { fields: {}, unknown: fact.reason };
    const peer = fact.state === "present" ? fact.value.peers.find((p) => p.publicKey === res.spec.publicKey) : undefined;
    if (!peer) return { phase: "Missing", fields: {} };
    const age = peer.latestHandshake ? Math.max(0, Math.floor((Date.now() - Date.parse(peer.latestHandshake)) / 1000)) : undefined;
    return {
      phase: peer.latestHandshake ? "Connected" : "Configured",
      fields: { latestEndpoint: peer.endpoint, latestHandshake: peer.latestHandshake, handshakeAgeSeconds: age, transferRxBytes: peer.transferRxBytes, transferTxBytes: peer.transferTxBytes },
    };
  },
  provides: { latestEndpoint: "string", latestHandshake: "timestamp", handshakeAgeSeconds: "int", transferRxBytes: "int", transferTxBytes: "int" },
  check(res, ctx) {
    const s = res.spec;
    if (!deviceOf(ctx, s.interface)) ctx.error(["interface"], `${s.interface} is not a WireGuardInterface`, "name the WireGuardInterface resource this peer belongs to");
    if (s.presharedKey !== undefined) ctx.error(["presharedKey"], "a preshared key is not accepted inside the config", "write it to a file (umask 077; wg genpsk > /etc/routerd/wireguard/PEER.psk) and set presharedKeyFile");
    const port = s.endpoint ? Number(ENDPOINT.exec(s.endpoint)?.[2]) : undefined;
    if (port !== undefined && (port < 1 || port > 65535)) ctx.error(["endpoint"], `port ${port} is out of range 1-65535`);
    for (const other of ctx.all<WireGuardPeerSpec>("WireGuardPeer")) {
      if (other.index >= res.index || other.spec.interface !== s.interface) continue;
      if (other.spec.publicKey === s.publicKey) ctx.error(["publicKey"], `WireGuardPeer/${other.metadata.name} already has this public key on ${s.interface}`);
      const shared = s.allowedIPs.filter((p) => other.spec.allowedIPs.includes(p));
      if (shared.length) ctx.error(["allowedIPs"], `${shared.join(", ")} already allowed for WireGuardPeer/${other.metadata.name} (WireGuard routes each prefix to one peer)`);
    }
  },
  intents(res, ctx) {
    const s = res.spec;
    const dev = deviceOf(ctx, s.interface);
    const ifname = dev ? wireGuardIfname(dev) : ctx.ifname(s.interface);
    const allowedIPs = [...s.allowedIPs].sort();
    const out: ArtifactIntent[] = [
      {
        kind: "wireguard.peer",
        name: artifactNames.wireguardPeer(ifname, s.publicKey),
        owner: res.owner,
        action: "ensure",
        applyWith: "wireguard",
        // A preshared key is compared by its fingerprint, filled in from the file when the desired state is computed.
        attributes: { ifname, publicKey: s.publicKey, allowedIPs, endpoint: s.endpoint ?? "", persistentKeepalive: s.persistentKeepalive, presharedKeyFile: s.presharedKeyFile ?? "" },
      },
    ];
    if (s.routeAllowedIPs) {
      for (const destination of allowedIPs) {
        const v6 = destination.includes(":");
        out.push({
          kind: v6 ? "linux.ipv6.route" : "linux.ipv4.route",
          name: artifactNames.route(s.routeTable, destination, s.routeMetric),
          owner: res.owner,
          action: "ensure",
          applyWith: "ip-batch",
          attributes: { table: s.routeTable, destination, metric: s.routeMetric, type: "unicast", device: ifname },
        });
      }
    }
    return out;
  },
});
