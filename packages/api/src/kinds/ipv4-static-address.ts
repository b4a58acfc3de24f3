import { artifactNames } from "@routerd/resource";
import { formats, parseIpv4Prefix } from "../formats.js";
import { firstByKey } from "../config-view.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";

export const ipv4StaticAddressSpec = t.object({
  interface: t.interfaceRef().describe("the Interface resource to put the address on"),
  address: formats.ipv4Interface().describe("address with prefix length, e.g. 192.168.1.1/24"),
  exclusive: t.withDefault(t.bool().describe("remove every other IPv4 address from the interface (plan lists them; addresses other resources want are kept)"), false),
  allowOverlap: t.optional(t.bool().describe("the prefix may overlap another configured IPv4 prefix (routerd only refuses the same address twice)")),
  allowOverlapReason: t.optional(t.string({ minLength: 1 }).describe("why the overlap is intended (documentation)")),
});

export type IPv4StaticAddressSpec = Infer<typeof ipv4StaticAddressSpec>;

export const ipv4StaticAddressKind = defineKind<IPv4StaticAddressSpec>({
  apiVersion: API_GROUPS.net,
  kind: "IPv4StaticAddress",
  description: "A static IPv4 address on an interface. Removed only by this resource's own teardown.",
  class: "address",
  contract: { type: "TeardownLifecycle", teardown: "resource", artifactKinds: ["linux.ipv4.address"] },
  supportsWhen: true,
  spec: ipv4StaticAddressSpec,
  status: (res, ctx) => ({ fields: { interface: res.spec.interface, ifname: ctx.ifname(res.spec.interface), address: res.spec.address, dryRun: false } }),
  provides: { interface: "string", ifname: "string", address: "string", dryRun: "bool" },
  check(res, ctx) {
    const mine = parseIpv4Prefix(res.spec.address)!;
    const first = firstByKey<IPv4StaticAddressSpec>(ctx, "IPv4StaticAddress", (r) => parseIpv4Prefix(r.spec.address)!.address).get(mine.address);
    if (first && first !== res) ctx.error(["address"], `address ${mine.address} is already assigned by IPv4StaticAddress/${first.metadata.name}`);
    if (res.spec.allowOverlapReason !== undefined && !res.spec.allowOverlap) ctx.error(["allowOverlapReason"], "only applies with allowOverlap: true");
    if (res.spec.exclusive) {
      const others = ctx.all<IPv4StaticAddressSpec>("IPv4StaticAddress").filter((a) => a !== res && a.spec.interface === res.spec.interface);
      if (others.length) ctx.error(["exclusive"], `Interface ${res.spec.interface} also has IPv4StaticAddress/${others[0]!.metadata.name}; exclusive would remove it`, "set exclusive on none of them, or keep one address");
      const client = ctx.all<{ interface: string }>("DHCPv4Client").find((c) => c.spec.interface === res.spec.interface);
      if (client) ctx.error(["exclusive"], `DHCPv4Client/${client.metadata.name} puts its lease's address on the same interface; exclusive would remove it while the lease is not known`, "remove exclusive");
    }
  },
  intents(res, ctx) {
    const ifname = ctx.ifname(res.spec.interface);
    const p = parseIpv4Prefix(res.spec.address)!;
    return [
      {
        kind: "linux.ipv4.address",
        name: artifactNames.ipv4Address(ifname, p.address, p.length),
        owner: res.owner,
        action: "ensure",
        applyWith: "ip-batch",
        attributes: { ifname, address: p.address, prefixLength: p.length },
      },
    ];
  },
});
