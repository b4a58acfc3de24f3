// BGPPeer: one or more neighbors (peers[]) with the same settings, configured in the BGPRouter named by
// routerRef. It owns nothing on the host: its BGPRouter's routerd-bgp holds the sessions.
import { artifactNames } from "@routerd/resource";
import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import type { BFDSpec } from "./bfd.js";
import { BGP_DAEMON } from "./bgp-router.js";
import { bgpPeerStatus } from "./bgp-status.js";
import { bgpCommunities, bgpExportPolicy, bgpImportPolicy, bgpTimers, passwordSource } from "./bgp-policy.js";

export const bgpPeerSpec = t.object({
  routerRef: t.ref("BGPRouter").describe("the BGPRouter these sessions belong to"),
  peerASN: t.int({ min: 1, max: 4294967295 }),
  peers: t.array(formats.ip(), { minItems: 1, unique: true }).describe("neighbor addresses"),
  passiveMode: t.optional(t.bool().describe("wait for the neighbor to connect")),
  ebgpMultihop: t.optional(t.int({ min: 1, max: 255 }).describe("TTL for eBGP sessions to neighbors more than one hop away")),
  password: t.optional(t.string({ minLength: 1, maxLength: 80 }).describe("TCP MD5 password (prefer passwordFrom)")),
  passwordFrom: t.optional(passwordSource.describe("read the TCP MD5 password from a file or an environment variable")),
  routeReflectorClient: t.optional(t.bool()),
  routeReflectorClusterID: t.optional(formats.ipv4()),
  timers: t.optional(bgpTimers),
  communities: t.optional(bgpCommunities),
  importPolicy: t.optional(bgpImportPolicy),
  exportPolicy: t.optional(bgpExportPolicy),
  bfd: t.optional(t.ref("BFD").describe("a BFD session to one of peers[]: BFD down takes that neighbor's BGP session down at once")),
});

export type BGPPeerSpec = Infer<typeof bgpPeerSpec>;

export const bgpPeerKind = defineKind<BGPPeerSpec>({
  apiVersion: API_GROUPS.net,
  kind: "BGPPeer",
  description: "BGP neighbors (peers[]) with shared settings and policies, in the BGPRouter named by routerRef.",
  class: "route",
  contract: { type: "NoHostTeardownReason", reason: "its sessions live in the BGPRouter's routerd-bgp, which removes them when the peer goes" },
  supportsWhen: true,
  spec: bgpPeerSpec,
  // Published by the router's routerd-bgp (one status resource per BGPPeer), read by routerd before planning.
  status: bgpPeerStatus,
  provides: { address: "string", state: "string", acceptedPrefixes: "int", observedAt: "timestamp" },
  check(res, ctx) {
    const s = res.spec;
    if (s.password !== undefined && s.passwordFrom !== undefined) ctx.error(["passwordFrom"], "give either password or passwordFrom, not both");
    const from = s.passwordFrom;
    if (from !== undefined && (from.file === undefined) === (from.env === undefined)) {
      ctx.error(["passwordFrom"], "needs exactly one of file or env");
    }
    if (s.routeReflectorClusterID !== undefined && !s.routeReflectorClient) {
      ctx.error(["routeReflectorClusterID"], "only applies with routeReflectorClient: true");
    }
    const bfd = s.bfd !== undefined ? ctx.find<BFDSpec>("BFD", s.bfd) : undefined;
    if (bfd !== undefined) {
      if (!s.peers.includes(bfd.spec.peer)) ctx.error(["bfd"], `BFD/${s.bfd} watches ${bfd.spec.peer}, which is not one of peers[] (${s.peers.join(", ")})`, `set the BFD's peer to one of ${s.peers.join(", ")}`);
      for (const other of ctx.all<BGPPeerSpec>("BGPPeer")) {
        if (other !== res && other.spec.bfd === s.bfd) ctx.error(["bfd"], `BFD/${s.bfd} is already used by BGPPeer/${other.metadata.name}`, "give each BGPPeer its own BFD");
      }
    }
    const ip = s.importPolicy;
    if (ip?.allowedPrefixLengthMin !== undefined && ip.allowedPrefixLengthMax !== undefined && ip.allowedPrefixLengthMin > ip.allowedPrefixLengthMax) {
      ctx.error(["importPolicy", "allowedPrefixLengthMin"], `is larger than allowedPrefixLengthMax (${ip.allowedPrefixLengthMax})`);
    }
    // One neighbor address belongs to one BGPPeer of a router.
    for (const other of ctx.all<BGPPeerSpec>("BGPPeer")) {
      if (other === res) break;
      if (other.spec.routerRef !== s.routerRef) continue;
      const dup = s.peers.find((a) => other.spec.peers.includes(a));
      if (dup !== undefined) ctx.error(["peers"], `${dup} is already a neighbor in BGPPeer/${other.metadata.name}`);
    }
  },
  // The sessions live in the router's daemon: the peer watches it, and owns nothing itself.
  intents: (res) => [
    {
      kind: "routerd.daemon",
      name: artifactNames.daemon(BGP_DAEMON, res.spec.routerRef),
      owner: res.owner,
      action: "observe",
      applyWith: "supervisor",
      attributes: { daemon: BGP_DAEMON, instance: res.spec.routerRef },
    },
  ],
});
