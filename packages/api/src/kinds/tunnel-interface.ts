// TunnelInterface (hybrid.routerd.net): an IPv4 tunnel to one peer — ipip, gre, or ipip in FOU or GUE (UDP,
// so it crosses NAT and ECMP hashes it). routerd creates the link (named after the resource), puts the
// inner address on it, and for FOU/GUE opens the local receive port. The traffic is not encrypted:
// trustedUnderlay must say the path is trusted.
import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { formats, parseIpv4Prefix } from "../formats.js";
import { API_GROUPS, defineKind, type Resource } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { fromSource } from "../status-source.js";
import { createdLinkIntent, ifnameProblem } from "./link-intent.js";

const MODES = ["ipip", "gre", "fou", "gue"] as const;
type Mode = (typeof MODES)[number];

/** Bytes each mode adds to a packet (outer IPv4 header, UDP, GRE/GUE headers). */
export const TUNNEL_OVERHEAD: Record<Mode, number> = { ipip: 20, gre: 24, fou: 28, gue: 32 };
const UNDERLAY_MTU = 1500;

export const tunnelInterfaceSpec = t.object({
  mode: t.enum(...MODES).describe("ipip, gre, fou (ipip in FOU) or gue (ipip in GUE)"),
  local: t.optional(formats.ipv4().describe("this end's underlay address")),
  localFrom: t.optional(fromSource({ format: "ipv4", into: "local" }).describe("this end's underlay address from another resource's status")),
  remote: t.optional(formats.ipv4().describe("the peer's underlay address")),
  remoteFrom: t.optional(fromSource({ format: "ipv4", into: "remote" }).describe("the peer's underlay address from another resource's status")),
  underlayInterface: t.optional(t.interfaceRef().describe("bind the tunnel to this underlay interface")),
  address: t.optional(t.string({ pattern: /^[0-9.]+(\/\d{1,2})?$/, patternHint: "an IPv4 address, with a prefix length unless peerAddress is set" }).describe("the inner address on the tunnel")),
  peerAddress: t.optional(formats.ipv4().describe("the inner address of the peer (point-to-point: address becomes /32 peer this)")),
  key: t.optional(t.int({ min: 1, max: 4294967295 }).describe("GRE key (gre only)")),
  ttl: t.optional(t.int({ min: 1, max: 255 }).describe("outer TTL (default: inherited from the inner packet)")),
  encapSport: t.optional(t.int({ min: 1, max: 65535 }).describe("FOU/GUE source port (default: per flow, for ECMP)")),
  encapDport: t.optional(t.int({ min: 1, max: 65535 }).describe("FOU/GUE port: the peer listens on it, and so does this end")),
  mtu: t.optional(t.int({ min: 68, max: 65535 }).describe(`the tunnel's MTU (default: ${UNDERLAY_MTU} minus the mode's overhead)`)),
  pathMTU: t.optional(t.object({ forceFragmentIPv4: t.optional(t.bool().describe("let the outer IPv4 packets fragment (path MTU discovery off)")) })),
  trustedUnderlay: t.bool().describe("the underlay path is trusted: these tunnels carry traffic unencrypted"),
});

export type TunnelInterfaceSpec = Infer<typeof tunnelInterfaceSpec>;

/** The inner address as the ip command takes it. */
function innerAddress(s: TunnelInterfaceSpec): { address: string; prefixLength: number; peer?: string } | undefined {
  if (!s.address) return undefined;
  if (s.peerAddress) return { address: s.address.split("/")[0]!, prefixLength: 32, peer: s.peerAddress };
  const p = parseIpv4Prefix(s.address);
  return p ? { address: p.address, prefixLength: p.length } : undefined;
}

const mtuOf = (s: TunnelInterfaceSpec) => s.mtu ?? UNDERLAY_MTU - TUNNEL_OVERHEAD[s.mode];

export const tunnelInterfaceKind = defineKind<TunnelInterfaceSpec>({
  apiVersion: API_GROUPS.hybrid,
  kind: "TunnelInterface",
  description: "An unencrypted IPv4 tunnel to one peer (ipip, gre, FOU or GUE), named after the resource, with its inner address.",
  class: "link",
  contract: { type: "TeardownLifecycle", teardown: "resource", artifactKinds: ["linux.link", "linux.ipv4.address", "linux.fou"] },
  supportsWhen: true,
  spec: tunnelInterfaceSpec,
  ifname: (res) => res.metadata.name,
  provides: {
    interface: "string",
    mode: "string",
    local: "string",
    remote: "string",
    peerAddress: "string",
    observedAddress: "string",
    observedPeerAddress: "string",
    underlayInterface: "string",
    underlayMTU: "int",
    tunnelOverhead: "int",
    mtu: "int",
    ttl: "int",
    encapSport: "int",
    encapDport: "int",
    dryRun: "bool",
  },
  status(res, ctx) {
    const s = res.spec;
    return {
      fields: {
        interface: res.metadata.name,
        mode: s.mode,
        local: s.local,
        remote: s.remote,
        peerAddress: s.peerAddress,
        underlayInterface: s.underlayInterface && ctx.ifname(s.underlayInterface),
        tunnelOverhead: TUNNEL_OVERHEAD[s.mode],
        mtu: mtuOf(s),
        ttl: s.ttl,
        encapSport: s.encapSport,
        encapDport: s.encapDport,
        dryRun: false,
      },
    };
  },
  check(res, ctx) {
    const s = res.spec;
    const bad = ifnameProblem(res.metadata.name);
    if (bad) ctx.error([], `the tunnel is named after the resource: ${bad}`, "rename the resource");
    if (!s.trustedUnderlay) ctx.error(["trustedUnderlay"], "ipip, GRE, FOU and GUE carry traffic unencrypted", "set trustedUnderlay: true if the underlay path is yours, or use an encrypted tunnel");
    if (s.remote === undefined && s.remoteFrom === undefined) ctx.error(["remote"], "the peer's underlay address is required", "set remote, or remoteFrom");
    if (s.key !== undefined && s.mode !== "gre") ctx.error(["key"], `a key is GRE's; mode ${s.mode} has none`);
    const udp = s.mode === "fou" || s.mode === "gue";
    if (udp && s.encapDport === undefined) ctx.error(["encapDport"], `mode ${s.mode} needs the UDP port (both ends listen on it)`, "encapDport: 5555, say");
    if (!udp && (s.encapDport !== undefined || s.encapSport !== undefined)) ctx.error([s.encapDport !== undefined ? "encapDport" : "encapSport"], `mode ${s.mode} has no UDP encapsulation`);
    if (s.address !== undefined && !innerAddress(s)) ctx.error(["address"], `${s.address} needs a prefix length (or set peerAddress)`, "address: 10.255.0.1/30");
    if (s.pathMTU?.forceFragmentIPv4 && s.ttl !== undefined) ctx.error(["ttl"], "a fixed ttl needs path MTU discovery, which forceFragmentIPv4 turns off", "drop ttl or forceFragmentIPv4");
  },
  intents(res, ctx) {
    const s = res.spec;
    if (s.remote === undefined) return []; // remoteFrom without a value: the effective view keeps this pending
    const ifname = res.metadata.name;
    const udp = s.mode === "fou" || s.mode === "gue";
    const out: ArtifactIntent[] = [];
    if (udp) {
      out.push({
        kind: "linux.fou",
        name: artifactNames.fou(s.encapDport!),
        owner: res.owner,
        action: "ensure",
        applyWith: "ip-fou",
        attributes: { port: s.encapDport!, encap: s.mode, ...(s.mode === "fou" ? { ipproto: 4 } : {}) },
      });
    }
    out.push(
      createdLinkIntent(res as Resource, {
        ifname,
        linkType: s.mode === "gre" ? "gre" : "ipip",
        linkData: {
          ...(s.local !== undefined ? { local: s.local } : {}),
          remote: s.remote,
          ...(s.ttl !== undefined ? { ttl: s.ttl } : {}),
          ...(s.key !== undefined ? { key: s.key } : {}),
          ...(s.underlayInterface ? { dev: ctx.ifname(s.underlayInterface) } : {}),
          ...(s.pathMTU?.forceFragmentIPv4 ? { pmtudisc: false } : {}),
          ...(udp ? { encap: s.mode, encapSport: s.encapSport ?? "auto", encapDport: s.encapDport! } : {}),
        },
        mtu: mtuOf(s),
      }),
    );
    const inner = innerAddress(s);
    if (inner) {
      out.push({
        kind: "linux.ipv4.address",
        name: artifactNames.ipv4Address(ifname, inner.address, inner.prefixLength),
        owner: res.owner,
        action: "ensure",
        applyWith: "ip-batch",
        attributes: { ifname, address: inner.address, prefixLength: inner.prefixLength, ...(inner.peer ? { peer: inner.peer } : {}) },
      });
    }
    return out;
  },
});
