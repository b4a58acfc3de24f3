import { describe, expect, it } from "vitest";
import { clientIdFrom, toHex } from "./identity.js";
import { formatMac, infoFromAddresses, parseIpLinkJson, parseMac, isInterfaceName } from "./interface-info.js";

const mac = Uint8Array.of(0xc2, 0x56, 0xed, 0x53, 0xb1, 0x34);

describe("client identifier (option 61)", () => {
  it("defaults to hardware type 1 plus the MAC", () => {
    expect(toHex(clientIdFrom(undefined, mac))).toBe("01:c2:56:ed:53:b1:34");
  });
  it("takes colon-separated hex as raw bytes and other text as type 0", () => {
    expect([...clientIdFrom("ff:00:01", mac)]).toEqual([0xff, 0, 1]);
    expect([...clientIdFrom("wan", mac)]).toEqual([0, 0x77, 0x61, 0x6e]);
  });
});

describe("interface facts from ip -j link", () => {
  const json = JSON.stringify([{ ifindex: 5, ifname: "rdx-b", link_type: "ether", address: "c2:56:ed:53:b1:34", mtu: 1500 }]);

  it("reads index, MAC and MTU", () => {
    const info = parseIpLinkJson(json, "rdx-b");
    expect({ ...info, mac: formatMac(info.mac) }).toEqual({ name: "rdx-b", ifindex: 5, mac: "c2:56:ed:53:b1:34", mtu: 1500 });
  });

  it("refuses links that cannot do DHCP over Ethernet", () => {
    const lo = JSON.stringify([{ ifindex: 1, ifname: "lo", link_type: "loopback", address: "00:00:00:00:00:00" }]);
    expect(() => parseIpLinkJson(lo, "lo")).toThrow(/loopback, DHCPv4 needs an Ethernet link/);
    expect(() => parseIpLinkJson("[]", "x")).toThrow(/interface x not found/);
    expect(() => parseIpLinkJson("garbage", "x")).toThrow(/cannot parse/);
  });

  it("takes index and MAC from the IPv6 link-local entry of getifaddrs, and nothing without one", () => {
    const v4 = { address: "10.0.0.2", netmask: "255.255.255.0", family: "IPv4", mac: "c2:56:ed:53:b1:34", internal: false, cidr: "10.0.0.2/24" } as const;
    const ll = { address: "fe80::1", netmask: "ffff:ffff:ffff:ffff::", family: "IPv6", mac: "c2:56:ed:53:b1:34", internal: false, cidr: "fe80::1/64", scopeid: 5 } as const;
    const info = infoFromAddresses("rdx-b", [v4, ll]);
    expect(info && { ...info, mac: formatMac(info.mac) }).toEqual({ name: "rdx-b", ifindex: 5, mac: "c2:56:ed:53:b1:34" });
    expect(infoFromAddresses("rdx-b", [v4])).toBeUndefined();
    expect(infoFromAddresses("rdx-b", undefined)).toBeUndefined();
  });

  it("validates names and MACs", () => {
    expect(isInterfaceName("wan0.100")).toBe(true);
    expect(isInterfaceName("a/b")).toBe(false);
    expect(isInterfaceName("x".repeat(16))).toBe(false);
    expect(parseMac("c2:56:ed:53:b1")).toBeUndefined();
  });
});
