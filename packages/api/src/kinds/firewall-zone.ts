import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { nftTableIntent } from "../tables.js";

export const firewallZoneSpec = t.object({
  role: t.enum("untrust", "trust", "mgmt").describe("untrust: WAN-like; trust: LAN; mgmt: management network"),
  interfaces: t.array(t.interfaceRef(), { minItems: 1, unique: true }),
});

export type FirewallZoneSpec = Infer<typeof firewallZoneSpec>;

export const firewallZoneKind = defineKind<FirewallZoneSpec>({
  apiVersion: API_GROUPS.firewall,
  kind: "FirewallZone",
  description: "A set of interfaces with a role; rules are written between zones.",
  class: "firewall",
  contract: { type: "ArtifactKinds", artifactKinds: ["nft.table"] },
  supportsWhen: false,
  spec: firewallZoneSpec,
  status: (res, ctx) => ({ fields: { interfaces: res.spec.interfaces.map((i) => ctx.ifname(i)) } }),
  provides: { interfaces: "stringList" },
  check(res, ctx) {
    res.spec.interfaces.forEach((iface, i) => {
      for (const other of ctx.all<FirewallZoneSpec>("FirewallZone")) {
        if (other.index < res.index && other.spec.interfaces.includes(iface)) {
          ctx.error(["interfaces", i], `Interface ${iface} is already in FirewallZone/${other.metadata.name}`, "an interface belongs to one zone");
        }
      }
    });
    if (res.metadata.name === "self") ctx.error([], "the zone name \"self\" is reserved for the router itself");
  },
  intents: (res) => [nftTableIntent("filter", res.owner)],
});
