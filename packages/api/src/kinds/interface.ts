import { artifactNames } from "@routerd/resource";
import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";

export const interfaceSpec = t.object({
  ifname: t.optional(formats.ifname().describe("Linux interface name; defaults to metadata.name")),
  managed: t.withDefault(t.bool().describe("false: routerd only observes the link (never changes it)"), true),
  adminUp: t.withDefault(t.bool().describe("bring the link administratively up"), true),
  mtu: t.optional(t.int({ min: 68, max: 65535 }).describe("link MTU")),
});

export type InterfaceSpec = Infer<typeof interfaceSpec>;

export const interfaceKind = defineKind<InterfaceSpec>({
  apiVersion: API_GROUPS.net,
  kind: "Interface",
  description: "A network interface routerd refers to; managed interfaces get their admin state and MTU reconciled.",
  class: "link",
  contract: { type: "ArtifactKinds", artifactKinds: ["linux.link"] },
  supportsWhen: false,
  spec: interfaceSpec,
  check(res, ctx) {
    if (!res.spec.managed && res.spec.mtu !== undefined) {
      ctx.error(["mtu"], "an unmanaged interface cannot set mtu", "set managed: true, or remove mtu");
    }
  },
  intents(res) {
    const ifname = res.spec.ifname ?? res.metadata.name;
    if (!res.spec.managed) {
      return [{ kind: "linux.link", name: artifactNames.link(ifname), owner: res.owner, action: "observe", applyWith: "ip-batch", attributes: { ifname } }];
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
