import { formats } from "../formats.js";
import { firstByKey } from "../config-view.js";
import { API_GROUPS, defineKind, type ConfigView } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { nftTableIntent } from "../tables.js";

export const portForwardSpec = t.object({
  listen: t.object({
    interface: t.interfaceRef().describe("where the forwarded port is reachable (usually the WAN)"),
    address: t.optional(formats.ipv4().describe("only this destination address (default: any on the interface)")),
    protocol: t.enum("tcp", "udp"),
    port: formats.portOrRange(),
  }),
  target: t.object({
    address: formats.ipv4(),
    port: t.optional(formats.port().describe("default: the listen port")),
  }),
  sourceCIDRs: t.withDefault(t.array(formats.ipv4Cidr(), { unique: true }), []),
  sourceSet: t.optional(t.ref("IPAddressSet")),
  hairpin: t.withDefault(t.object({ enabled: t.withDefault(t.bool(), false) }), { enabled: false }),
});

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
