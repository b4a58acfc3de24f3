import { describe, expect, it } from "vitest";
import {
  Opt,
  decodeClasslessRoutes,
  encodeClasslessRoutes,
  encodeOptions,
  joinFragments,
  parseOptionArea,
  readAddressList,
  readText,
  readU32,
} from "./options.js";

function parse(bytes: number[]): { ok: boolean; map: Map<number, Uint8Array>; error?: string } {
  const frags = new Map<number, Uint8Array[]>();
  const buf = Uint8Array.from(bytes);
  const r = parseOptionArea(buf, 0, buf.length, frags);
  return { ok: r.ok, map: joinFragments(frags), ...(r.ok ? {} : { error: r.error }) };
}

describe("option area parsing", () => {
  it("skips pads, stops at End and ignores what follows", () => {
    const r = parse([0, 0, 51, 4, 0, 0, 0x0e, 0x10, 255, 51, 4, 9, 9, 9, 9]);
    expect(r.ok).toBe(true);
    expect(readU32(r.map, Opt.LeaseTime)).toBe(3600);
  });

  it("tolerates a missing End", () => {
    const r = parse([53, 1, 5]);
    expect(r.ok).toBe(true);
    expect(r.map.get(53)).toEqual(Uint8Array.of(5));
  });

  it("rejects an option whose length runs past the area", () => {
    const r = parse([53, 1, 5, 6, 8, 1, 1, 1, 1]);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/option 6 length 8 overflows/);
  });

  it("rejects an option cut before its length byte", () => {
    expect(parse([53, 1, 5, 6]).ok).toBe(false);
  });

  it("takes the first of repeated whole fixed-size options (dnsmasq repeats 51) but still joins split ones", () => {
    const dup = parse([51, 4, 0, 0, 0, 120, 51, 4, 0, 0, 0, 20, 255]);
    expect(readU32(dup.map, Opt.LeaseTime)).toBe(120);
    const split = parse([51, 2, 0, 0, 51, 2, 0, 120, 255]);
    expect(readU32(split.map, Opt.LeaseTime)).toBe(120);
  });

  it("concatenates repeated options (RFC 3396)", () => {
    const r = parse([6, 4, 10, 0, 0, 1, 53, 1, 5, 6, 4, 10, 0, 0, 2, 255]);
    expect(readAddressList(r.map, Opt.DnsServers)).toEqual(["10.0.0.1", "10.0.0.2"]);
  });
});

describe("option encoding", () => {
  it("splits values longer than 255 bytes and round-trips them", () => {
    const long = Uint8Array.from({ length: 600 }, (_, i) => i & 255);
    const enc = encodeOptions([[Opt.MessageType, Uint8Array.of(1)], [Opt.ClasslessRoutes, long]]);
    // 3 bytes type + 3 fragments (255, 255, 90) with 2-byte headers + End.
    expect(enc.length).toBe(3 + 600 + 3 * 2 + 1);
    const r = parse([...enc]);
    expect([...(r.map.get(Opt.ClasslessRoutes) ?? [])]).toEqual([...long]);
  });

  it("never writes Pad or End from the list", () => {
    expect([...encodeOptions([[Opt.Pad, Uint8Array.of(1)], [Opt.End, Uint8Array.of(1)]])]).toEqual([255]);
  });
});

describe("typed readers", () => {
  it("refuse wrong lengths instead of guessing", () => {
    const r = parse([51, 3, 0, 0, 1, 6, 5, 1, 2, 3, 4, 5, 255]);
    expect(readU32(r.map, Opt.LeaseTime)).toBeUndefined();
    expect(readAddressList(r.map, Opt.DnsServers)).toBeUndefined();
  });

  it("reads NVT text, dropping trailing NULs and refusing control bytes", () => {
    const ok = parse([15, 9, ...Buffer.from("lan.test"), 0]);
    expect(readText(ok.map, Opt.DomainName)).toBe("lan.test");
    const bad = parse([15, 4, 0x61, 0x0a, 0x62, 0x63]);
    expect(readText(bad.map, Opt.DomainName)).toBeUndefined();
  });
});

describe("classless static routes (RFC 3442)", () => {
  it("decodes the RFC's width/significant-octet examples", () => {
    // 0/0 via 10.0.0.1, 10.0.0.0/8 via 10.0.0.2, 10.17.0.0/16 via 10.0.0.3, 10.27.129.0/24 via 10.0.0.4,
    // 10.229.0.128/25 via 10.0.0.5, 10.198.122.47/32 via 10.0.0.6
    const bytes = Uint8Array.from([
      0, 10, 0, 0, 1,
      8, 10, 10, 0, 0, 2,
      16, 10, 17, 10, 0, 0, 3,
      24, 10, 27, 129, 10, 0, 0, 4,
      25, 10, 229, 0, 128, 10, 0, 0, 5,
      32, 10, 198, 122, 47, 10, 0, 0, 6,
    ]);
    expect(decodeClasslessRoutes(bytes)).toEqual([
      { destination: "0.0.0.0", prefixLength: 0, gateway: "10.0.0.1" },
      { destination: "10.0.0.0", prefixLength: 8, gateway: "10.0.0.2" },
      { destination: "10.17.0.0", prefixLength: 16, gateway: "10.0.0.3" },
      { destination: "10.27.129.0", prefixLength: 24, gateway: "10.0.0.4" },
      { destination: "10.229.0.128", prefixLength: 25, gateway: "10.0.0.5" },
      { destination: "10.198.122.47", prefixLength: 32, gateway: "10.0.0.6" },
    ]);
    expect([...encodeClasslessRoutes(decodeClasslessRoutes(bytes) ?? [])]).toEqual([...bytes]);
  });

  it("masks host bits beyond the prefix", () => {
    expect(decodeClasslessRoutes(Uint8Array.of(9, 10, 255, 1, 2, 3, 4))).toEqual([
      { destination: "10.128.0.0", prefixLength: 9, gateway: "1.2.3.4" },
    ]);
  });

  it("ignores the whole option when any entry is malformed", () => {
    expect(decodeClasslessRoutes(Uint8Array.of(0, 10, 0, 0, 1, 33, 1, 2, 3, 4, 5, 6, 7, 8, 9))).toBeUndefined();
    expect(decodeClasslessRoutes(Uint8Array.of(0, 10, 0, 0, 1, 24, 10, 0))).toBeUndefined();
    expect(decodeClasslessRoutes(new Uint8Array(0))).toBeUndefined();
  });
});
