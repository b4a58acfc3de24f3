import { formats } from "../formats.js";
import { firstByKey } from "../config-view.js";
import { API_GROUPS, defineKind, type ConfigView } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { fromSource } from "../status-source.js";
import { nftTableIntent } from "../tables.js";

export const portForwardSpec = t.object({
  listen: t.object({
    interface: t.interfaceRef().describe("where the forwarded port is reachable (usually the WAN)"),
    address: t.optional(formats.ipv4().describe("only this destination address (default: any on the interface)")),
    addressFrom: t.optional(fromSource({ format: "ipv4", into: "address" }).describe("the listen address from status, e.g. {resource: DHCPv4Client/wan, field: currentAddress}")),
    protocol: t.enum("tcp", "udp"),
    port: formats.portOrRange(),
  }),
  target: t.object({
    address: t.optional(formats.ipv4().describe("the inside host (or addressFrom)")),
    addressFrom: t.optional(fromSource({ format: "ipv4", into: "address" }).describe("the inside host from status, e.g. {resource: DHCPv4Reservation/nas, field: address}")),
    port: t.optional(formats.port().describe("default: the listen port")),
  }),
  sourceCIDRs: t.withDefault(t.array(formats.ipv4Cidr(), { unique: true }), []),
  sourceSet: t.optional(t.ref("IPAddressSet")),
  hairpin: t.withDefault(
    t.object({
      enabled: t.withDefault(t.bool().describe("LAN clients reach the forward at the router's address"), false),
      mode: t.optional(t.enum("auto", "manual", "off").describe("auto: from every other interface; manual: from interfaces only; off: none (mode wins over enabled)")),
      interfaces: t.optional(t.array(t.interfaceRef(), { minItems: 1, unique: true }).describe("where hairpin clients are (mode manual; restricts auto)")),
    }),
    { enabled: false },
  ),
});

/** Whether hairpin NAT applies, and from which interfaces (undefined: from every interface but the listen one). */
export function hairpinOf(spec: PortForwardSpec): { on: boolean; interfaces?: string[] } {
  const h = spec.hairpin;
  const on = h.mode === undefined ? h.enabled : h.mode !== "off";
  return { on, ...(on && h.interfaces ? { interfaces: h.interfaces } : {}) };
}

export type PortForwardSpec = Infer<typeof portForwardSpec>;

const listenKey = (r: { spec: PortForwardSpec }) => {
  const l = r.spec.listen;
  return `${l.interface}|${l.protocol}|${String(l.port)}|${l.address ?? ""}`;
};

export function hasFirewall(ctx: ConfigView): boolean {
  return ctx.all("FirewallPolicy").length > 0 || ctx.all("FirewallZone").length > 0;
}

export const portForwardKind = defineKind<PortForwardSpec>({
  apiVersion: API_GROUPS.firewall,
  kind: "PortForward",
  description: "DNAT of a port on an interface to an inside host, with optional hairpin NAT for LAN clients.",
  class: "nat",
  contract: { type: "ArtifactKinds", artifactKinds: ["nft.table"] },
  supportsWhen: true,
  spec: portForwardSpec,
  status: (res) => ({
    fields: { listenAddress: res.spec.listen.address, target: { address: res.spec.target.address, port: res.spec.target.port ?? res.spec.listen.port }, dryRun: false },
  }),
  provides: { listenAddress: "string", target: "object", dryRun: "bool" },
  check(res, ctx) {
    const l = res.spec.listen;
    if (!res.spec.target.address && !res.spec.target.addressFrom) ctx.error(["target", "address"], "is required (or addressFrom)");
    const h = res.spec.hairpin;
    if (h.mode === "manual" && !h.interfaces) ctx.error(["hairpin", "interfaces"], "mode manual needs the interfaces hairpin clients are on");
    if (h.mode === "off" && h.interfaces) ctx.error(["hairpin", "interfaces"], "mode off uses no interfaces");
    if (h.mode !== undefined && h.enabled && h.mode === "off") ctx.error(["hairpin", "enabled"], "contradicts mode: off");
    if (h.interfaces?.includes(l.interface)) ctx.error(["hairpin", "interfaces"], `${l.interface} is where the forward listens`);
    if (typeof l.port === "string" && res.spec.target.port !== undefined) {
      ctx.error(["target", "port"], "a port range forwards to the same ports; target.port cannot be set");
    }
    const first = firstByKey<PortForwardSpec>(ctx, "PortForward", listenKey).get(listenKey(res));
    if (first && first !== res) {
      ctx.error(["listen", "port"], `${l.protocol} port ${l.port} on ${l.interface} is already forwarded by PortForward/${first.metadata.name}`);
    }
  },
  intents: (res, ctx) => [nftTableIntent("nat", res.owner), ...(hasFirewall(ctx) ? [nftTableIntent("filter", res.owner)] : [])],
});
