import { knownKind, unknownKind, type Inventory } from "@routerd/resource";
import { describe, expect, it } from "vitest";
import type { Step } from "./apply.js";
import { linksNeedingPromotion } from "./ipv4-siblings.js";

const step = (op: Step["op"], ifname: string, cidr: string): Step => {
  const [address, length] = cidr.split("/");
  return { op, kind: "linux.ipv4.address", name: `${ifname}/${cidr}`, attributes: { ifname, address, prefixLength: Number(length) } };
};
const seen = (...steps: Step[]): Inventory => new Map([["linux.ipv4.address", knownKind(steps.map((s) => ({ kind: s.kind, name: s.name, attributes: s.attributes })))]]);

describe("linksNeedingPromotion", () => {
  it("names the link where a delete would take a same-subnet address added in this run with it", () => {
    const add = step("ensure", "lan0", "192.0.2.2/24");
    const del = step("remove", "lan0", "192.0.2.1/24");
    expect(linksNeedingPromotion([del], [add, del], seen(del))).toEqual(["lan0"]);
  });

  it("counts addresses already on the link, routerd's or not", () => {
    const del = step("remove", "lan0", "192.0.2.1/24");
    expect(linksNeedingPromotion([del], [del], seen(del, step("ensure", "lan0", "192.0.2.200/24")))).toEqual(["lan0"]);
  });

  it("leaves links alone where no sibling shares the subnet: another subnet, another link, or only itself", () => {
    const del = step("remove", "lan0", "192.0.2.1/24");
    const others = seen(del, step("ensure", "lan0", "192.0.3.1/24"), step("ensure", "lan1", "192.0.2.2/24"), step("ensure", "lan0", "192.0.2.130/25"));
    expect(linksNeedingPromotion([del], [del], others)).toEqual([]);
    expect(linksNeedingPromotion([step("ensure", "lan0", "192.0.2.2/24")], [], seen())).toEqual([]);
  });

  it("promotes when the addresses on the link are unknown", () => {
    const del = step("remove", "wan0", "198.51.100.2/24");
    expect(linksNeedingPromotion([del], [del], new Map([["linux.ipv4.address", unknownKind("ip failed")]]))).toEqual(["wan0"]);
  });
});
