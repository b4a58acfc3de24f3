import { describe, expect, it } from "vitest";
import { classfulMask, isIpv4, maskToPrefix, networkAddress, prefixToMask } from "./ipv4.js";

describe("ipv4 helpers", () => {
  it("parses only canonical dotted quads", () => {
    expect(["192.0.2.1", "0.0.0.0", "255.255.255.255"].every(isIpv4)).toBe(true);
    expect(["256.0.0.1", "1.2.3", "01.2.3.4", " 1.2.3.4", "1.2.3.4.5"].some(isIpv4)).toBe(false);
  });
  it("converts masks and prefixes both ways and refuses holes", () => {
    for (let p = 0; p <= 32; p++) expect(maskToPrefix(prefixToMask(p))).toBe(p);
    expect(maskToPrefix("255.0.255.0")).toBeUndefined();
  });
  it("knows classful defaults and network addresses", () => {
    expect([classfulMask("10.0.0.1"), classfulMask("172.16.0.1"), classfulMask("192.168.1.1")]).toEqual(["255.0.0.0", "255.255.0.0", "255.255.255.0"]);
    expect(networkAddress("192.0.2.77", 26)).toBe("192.0.2.64");
  });
});
