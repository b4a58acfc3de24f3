// VXLANTunnel: a VXLAN device over an underlay interface; each peer is a flood entry (all-zeros MAC towards
// the peer's address), and the device may be enslaved to a bridge that carries a LAN across routers.
import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { nftTableIntent } from "../tables.js";
import { createdIfname, createdLinkIntent, ifnameProblem } from "./link-intent.js";

export const VXLAN_PORT = 4789;

export const vxlanTunnelSpec = t.object({
  ifname: t.optional(formats.ifname().describe("the VXLAN device's name (default: the resource's name)")),
  vni: t.int({ min: 1, max: 16777215 }).describe("VXLAN network identifier"),
  localAddress: formats.ip().describe("this router's underlay address the tunnel starts from"),
  underlayInterface: t.interfaceRef().describe("the interface the encapsulated packets leave by"),
  peers: t.withDefault(t.array(formats.ip(), { unique: true }).describe("remote tunnel endpoints (a flood entry each)"), []),
  udpPort: t.withDefault(t.int({ min: 1, max: 65535 }).describe(`UDP destination port (default ${VXLAN_PORT})`), VXLAN_PORT),
  mtu: t.optional(t.int({ min: 68, max: 65535 }).describe("the VXLAN device's MTU (underlay MTU minus 50 for IPv4, 70 for IPv6)")),
  bridge: t.optional(t.interfaceRef().describe("a bridge to enslave the VXLAN device to")),
  outerDF: t.optional(t.enum("inherit", "set", "unset").describe("the outer header's don't-fragment bit")),
  tcpMSSClamp: t.withDefault(
    t.bool().describe("rewrite the MSS of TCP SYNs bridged through the tunnel to fit its mtu (routerd's bridge routerd_mss table; needs bridge and mtu)"),
    false,
  ),
});

export type VXLANTunnelSpec = Infer<typeof vxlanTunnelSpec>;

/** IPv4 and IPv6 header plus the TCP header: what a segment adds to its MSS inside the tunnel's MTU. */
const TCP_OVERHEAD = { ipv4: 40, ipv6: 60 } as const;

/** The largest MSS a TCP segment of each family may carry through the tunnel, when it clamps. */
export function vxlanClampMss(spec: VXLANTunnelSpec): { ipv4: number; ipv6: number } | undefined {
  if (!spec.tcpMSSClamp || spec.mtu === undefined) return undefined;
  return { ipv4: spec.mtu - TCP_OVERHEAD.ipv4, ipv6: spec.mtu - TCP_OVERHEAD.ipv6 };
}

export const vxlanTunnelKind = defineKind<VXLANTunnelSpec>({
  apiVersion: API_GROUPS.net,
  kind: "VXLANTunnel",
  description: "A VXLAN device with its remote endpoints as flood entries, optionally in a bridge (a LAN stretched across routers).",
  class: "link",
  contract: { type: "ArtifactKinds", artifactKinds: ["linux.link", "linux.fdb", "nft.table"] },
  supportsWhen: true,
  spec: vxlanTunnelSpec,
  ifname: (res) => createdIfname(res),
  provides: { ifname: "string", vni: "int" },
  status: (res) => ({ fields: { ifname: createdIfname(res), vni: res.spec.vni } }),
  check(res, ctx) {
    const bad = ifnameProblem(createdIfname(res));
    if (bad) ctx.error(["ifname"], bad, "set ifname");
    const v6 = res.spec.localAddress.includes(":");
    for (const [i, p] of res.spec.peers.entries()) if (p.includes(":") !== v6) ctx.error(["peers", i], `peer ${p} is not of the local address's family`);
    if (res.spec.tcpMSSClamp) {
      // A bridge forwards full-size frames without fragmenting or answering "too big": the clamp is for the
      // bridged path, and its MSS follows from the MTU the tunnel really carries.
      if (!res.spec.bridge) ctx.error(["tcpMSSClamp"], "tcpMSSClamp clamps traffic bridged through the tunnel, and this tunnel is in no bridge", "set bridge, or remove tcpMSSClamp (routed traffic gets the kernel's packet-too-big answers)");
      if (res.spec.mtu === undefined) ctx.error(["tcpMSSClamp"], "tcpMSSClamp needs the tunnel's mtu: the clamped MSS is mtu minus 40 (IPv4) or 60 (IPv6)", `set mtu: the underlay's MTU minus ${v6 ? 70 : 50}`);
      else if (res.spec.mtu - TCP_OVERHEAD.ipv6 < 536) ctx.error(["mtu"], `mtu ${res.spec.mtu} leaves an IPv6 MSS below 536 bytes`, "set mtu to 596 or more, or remove tcpMSSClamp");
    }
    for (const other of ctx.all<VXLANTunnelSpec>("VXLANTunnel")) {
      if (other.index < res.index && other.spec.vni === res.spec.vni && other.spec.underlayInterface === res.spec.underlayInterface && other.spec.udpPort === res.spec.udpPort) {
        ctx.error(["vni"], `VXLANTunnel/${other.metadata.name} uses VNI ${res.spec.vni} on the same underlay and port`);
      }
    }
  },
  intents(res, ctx) {
    const s = res.spec;
    const ifname = createdIfname(res);
    const out: ArtifactIntent[] = [
      createdLinkIntent(res, {
        ifname,
        linkType: "vxlan",
        linkData: { vni: s.vni, local: s.localAddress, dev: ctx.ifname(s.underlayInterface), port: s.udpPort, learning: false, ...(s.outerDF ? { df: s.outerDF } : {}) },
        ...(s.mtu !== undefined ? { mtu: s.mtu } : {}),
        ...(s.bridge ? { master: ctx.ifname(s.bridge) } : {}),
      }),
    ];
    if (vxlanClampMss(s)) out.push(nftTableIntent("mss", res.owner));
    for (const peer of s.peers) {
      out.push({ kind: "linux.fdb", name: artifactNames.fdb(ifname, peer), owner: res.owner, action: "ensure", applyWith: "bridge", attributes: { ifname, dst: peer } });
    }
    return out;
  },
});
