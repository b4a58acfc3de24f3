import { describe, expect, it } from "vitest";
import { DEFAULT_ENTERPRISE_NUMBER, buildDuid, duidTypeOf, parseMac } from "./duid.js";
import { toHex } from "./wire.js";

const mac = parseMac("02:00:5e:10:20:30")!;
const identifier = Uint8Array.from([1, 2, 3, 4]);

describe("DUID", () => {
  it("builds DUID-LL: type 3, hardware type 1, MAC", () => {
    const d = buildDuid("ll", { mac, nowMs: 0, identifier });
    expect(toHex(d.duid)).toBe("00030001" + "02005e102030");
    expect(duidTypeOf(d.duid)).toBe("ll");
  });

  it("builds DUID-LLT with seconds since 2000-01-01 UTC", () => {
    const d = buildDuid("llt", { mac, nowMs: Date.UTC(2000, 0, 1, 0, 0, 100), identifier });
    expect(toHex(d.duid)).toBe("00010001" + "00000064" + "02005e102030");
    expect(duidTypeOf(d.duid)).toBe("llt");
  });

  it("builds DUID-EN with the enterprise number and identifier", () => {
    const d = buildDuid("en", { nowMs: 0, identifier, enterpriseNumber: 0x01020304 });
    expect(toHex(d.duid)).toBe("0002" + "01020304" + "01020304");
    expect(toHex(buildDuid("en", { nowMs: 0, identifier }).duid).slice(4, 12)).toBe(DEFAULT_ENTERPRISE_NUMBER.toString(16).padStart(8, "0"));
  });

  it("falls back to DUID-EN when the interface has no MAC (e.g. ppp)", () => {
    const d = buildDuid("ll", { nowMs: 0, identifier, mac: new Uint8Array(6) });
    expect(d.type).toBe("en");
    expect(d.fallbackReason).toMatch(/no usable MAC/);
  });

  it("parses MACs strictly", () => {
    expect(parseMac("aa:bb:cc:dd:ee")).toBeUndefined();
    expect(parseMac("aa:bb:cc:dd:ee:fg")).toBeUndefined();
    expect(parseMac("AA:bb:cc:dd:ee:ff\n")).toEqual(Uint8Array.from([0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff]));
  });
});
