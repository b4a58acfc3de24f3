import { artifactNames } from "@routerd/resource";
import { formats, parseIpv4Prefix } from "../formats.js";
import { firstByKey } from "../config-view.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";

export const ipv4StaticAddressSpec = t.object({
  interface: t.interfaceRef().describe("the Interface resource to put the address on"),
  address: formats.ipv4Interface().describe("address with prefix length, e.g. 192.168.1.1/24"),
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
