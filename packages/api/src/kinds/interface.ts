import { artifactNames } from "@routerd/resource";
import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";

export const interfaceSpec = t.object({
  ifname: t.optional(formats.ifname().describe("Linux interface name; defaults to metadata.name")),
  managed: t.withDefault(t.bool().describe("false: routerd only observes the link (never changes it)"), true),
  adminUp: t.withDefault(t.bool().describe("bring the link administratively up"), true),
  mtu: t.optional(t.int({ min: 68, max: 65535 }).describe("link MTU; on an unmanaged interface the MTU it is expected to have (reported by plan, never changed)")),
  owner: t.optional(
    t.enum("routerd", "external").describe("who brings the link into existence; routerd never creates or deletes an Interface's link either way (managed decides whether it changes it)"),
  ),
});

export type InterfaceSpec = Infer<typeof interfaceSpec>;

export const interfaceKind = defineKind<InterfaceSpec>({
  apiVersion: API_GROUPS.net,
  kind: "Interface",
  description: "A network interface routerd refers to; managed interfaces get their admin state and MTU reconciled.",
  class: "link",
  contract: { type: "ArtifactKinds", artifactKinds: ["linux.link"] },
  supportsWhen: true,
  spec: interfaceSpec,
  ifname: (res) => res.spec.ifname ?? res.metadata.name,
  status(res, ctx) {
    const ifname = res.spec.ifname ?? res.metadata.name;
    const link = ctx.runtime.link(ifname);
    if (link.state === "unknown") return { fields: { ifname }, unknown: link.reason };
    if (link.state === "absent") return { phase: "Missing", fields: { ifname } };
    const l = link.value;
    const ipv4 = l.ipv4.map((a) => a.address);
    const ipv6 = l.ipv6.filter((a) => a.scope !== "link" && !a.address.startsWith("fe80:")).map((a) => a.address);
    const down = !l.adminUp || l.operstate === "DOWN" || l.operstate === "LOWERLAYERDOWN";
    return {
      phase: down ? "Down" : "Up",
      fields: { ifname, macAddress: l.mac, addresses: [...ipv4, ...ipv6], ipv4Addresses: ipv4, ipv6Addresses: ipv6, primaryIPv4: ipv4[0], primaryIPv6: ipv6[0] },
    };
  },
  provides: { ifname: "string", addresses: "stringList", ipv4Addresses: "stringList", ipv6Addresses: "stringList", primaryIPv4: "string", primaryIPv6: "string", macAddress: "string" },
  intents(res) {
    const ifname = res.spec.ifname ?? res.metadata.name;
    if (!res.spec.managed) {
      // An expected MTU is only compared: plan says when the link differs.
      const mtu = res.spec.mtu !== undefined ? { mtu: res.spec.mtu } : {};
      return [{ kind: "linux.link", name: artifactNames.link(ifname), owner: res.owner, action: "observe", applyWith: "ip-batch", attributes: { ifname, ...mtu } }];
    }
    return [
      {
        kind: "linux.link",
        name: artifactNames.link(ifname),
        owner: res.owner,
        action: "ensure",
        applyWith: "ip-batch",
        attributes: { ifname, adminUp: res.spec.adminUp, ...(res.spec.mtu !== undefined ? { mtu: res.spec.mtu } : {}) },
      },
    ];
  },
});
