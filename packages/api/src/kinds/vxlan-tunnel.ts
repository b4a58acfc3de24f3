// VXLANTunnel: a VXLAN device over an underlay interface; each peer is a flood entry (all-zeros MAC towards
// the peer's address), and the device may be enslaved to a bridge that carries a LAN across routers.
import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
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
  tcpMSSClamp: t.withDefault(t.bool().describe("clamp TCP MSS on the tunnel (not supported yet: set an MTU the path carries)"), false),
});

export type VXLANTunnelSpec = Infer<typeof vxlanTunnelSpec>;

export const vxlanTunnelKind = defineKind<VXLANTunnelSpec>({
  apiVersion: API_GROUPS.net,
  kind: "VXLANTunnel",
  description: "A VXLAN device with its remote endpoints as flood entries, optionally in a bridge (a LAN stretched across routers).",
  class: "link",
  contract: { type: "ArtifactKinds", artifactKinds: ["linux.link", "linux.fdb"] },
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
    if (res.spec.tcpMSSClamp) ctx.error(["tcpMSSClamp"], "routerd does not clamp MSS on VXLAN yet", "remove tcpMSSClamp and set an mtu the underlay carries (its MTU minus 50)");
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
    for (const peer of s.peers) {
      out.push({ kind: "linux.fdb", name: artifactNames.fdb(ifname, peer), owner: res.owner, action: "ensure", applyWith: "bridge", attributes: { ifname, dst: peer } });
    }
    return out;
  },
});
