// decodeUpdate gives what the watch stream's decoder gives for the same paths (rib/attrs.ts adjInPaths on
// GoBGP's api.Path): UPDATE bytes built here per RFC 4271/4760/6793, checked against announcedPath.
import { describe, expect, it } from "vitest";
import type { Path } from "@routerd/gobgp-api/gen/gobgp";
import { adjInPaths } from "../rib/attrs.js";
import { communityValue } from "../gobgp/attrs.js";
import { announcedPath } from "../gobgp/codec.js";
import { AFI_IPV4, AFI_IPV6, decodeUpdate } from "./update.js";

const u8 = (...b: number[]) => Buffer.from(b);
const u16 = (v: number) => u8(v >> 8, v & 255);
const u32 = (v: number) => u8(v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255);
const attr = (flags: number, type: number, value: Buffer) => Buffer.concat([u8(flags | (value.length > 255 ? 0x10 : 0), type), value.length > 255 ? u16(value.length) : u8(value.length), value]);

function ipBytes(address: string): Buffer {
  if (!address.includes(":")) return Buffer.from(address.split(".").map(Number));
  const [head, tail] = address.split("::") as [string, string | undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t];
  return Buffer.concat(groups.map((g) => u16(parseInt(g, 16))));
}
const nlri = (prefix: string) => {
  const [a, l] = prefix.split("/") as [string, string];
  const len = Number(l);
  return Buffer.concat([u8(len), ipBytes(a).subarray(0, (len + 7) >> 3)]);
};

interface Spec {
  withdrawn?: string[];
  nlri?: string[];
  origin?: number;
  asPath?: number[];
  asSet?: number[];
  twoByte?: boolean;
  as4?: number[];
  nextHop?: string;
  med?: number;
  localPref?: number;
  communities?: string[];
  mpReach?: { nextHop: string; linkLocal?: string; prefixes: string[] };
  mpUnreach?: { afi: number; prefixes: string[] };
}

/** A BGP UPDATE message (with its header) as a speaker would send it. */
export function update(s: Spec): Buffer {
  const attrs: Buffer[] = [];
  if (s.origin !== undefined) attrs.push(attr(0x40, 1, u8(s.origin)));
  if (s.asPath !== undefined) {
    const w = (n: number) => (s.twoByte ? u16(n) : u32(n));
    const segs = [Buffer.concat([u8(2, s.asPath.length), ...s.asPath.map(w)])];
    if (s.asSet) segs.push(Buffer.concat([u8(1, s.asSet.length), ...s.asSet.map(w)]));
    attrs.push(attr(0x40, 2, Buffer.concat(segs)));
  }
  if (s.nextHop !== undefined) attrs.push(attr(0x40, 3, ipBytes(s.nextHop)));
  if (s.med !== undefined) attrs.push(attr(0x80, 4, u32(s.med)));
  if (s.localPref !== undefined) attrs.push(attr(0x40, 5, u32(s.localPref)));
  if (s.communities) attrs.push(attr(0xc0, 8, Buffer.concat(s.communities.map((c) => u32(communityValue(c))))));
  if (s.mpReach) {
    const nh = Buffer.concat([ipBytes(s.mpReach.nextHop), ...(s.mpReach.linkLocal ? [ipBytes(s.mpReach.linkLocal)] : [])]);
    attrs.push(attr(0x80, 14, Buffer.concat([u16(AFI_IPV6), u8(1, nh.length), nh, u8(0), ...s.mpReach.prefixes.map(nlri)])));
  }
  if (s.mpUnreach) attrs.push(attr(0x80, 15, Buffer.concat([u16(s.mpUnreach.afi), u8(1), ...s.mpUnreach.prefixes.map(nlri)])));
  if (s.as4) attrs.push(attr(0xc0, 17, Buffer.concat([u8(2, s.as4.length), ...s.as4.map(u32)])));
  const w = Buffer.concat((s.withdrawn ?? []).map(nlri));
  const a = Buffer.concat(attrs);
  const body = Buffer.concat([u16(w.length), w, u16(a.length), a, ...(s.nlri ?? []).map(nlri)]);
  return Buffer.concat([Buffer.alloc(16, 0xff), u16(19 + body.length), u8(2), body]);
}

const decode = (b: Buffer, neighbor = "192.0.2.2", twoByte = false) => decodeUpdate(b, 0, b.length, neighbor, twoByte);
const from = (p: Path, neighbor: string): Path => ({ ...p, neighborIp: neighbor });

describe("decodeUpdate", () => {
  it("reads an IPv4 UPDATE as the watch stream's decoder reads the same paths, one attribute object for all", () => {
    const got = decode(update({ origin: 0, asPath: [65002, 4200000000], nextHop: "192.0.2.2", communities: ["65002:7", "no-export"], nlri: ["10.0.0.0/24", "10.0.1.0/24", "0.0.0.0/0", "192.0.2.1/32"] }));
    const want = adjInPaths(["10.0.0.0/24", "10.0.1.0/24", "0.0.0.0/0", "192.0.2.1/32"].map((p) => from(announcedPath(p, "192.0.2.2", [65002, 4200000000], [communityValue("65002:7"), communityValue("no-export")]), "192.0.2.2")));
    expect(got.paths).toEqual(want);
    expect(got.paths[0]!.attrs).toBe(got.paths[3]!.attrs);
    expect(got.endOfRib).toBeUndefined();
  });

  it("reads MED, LOCAL_PREF, ORIGIN and an AS_SET (counted once), absent MED as 0", () => {
    const [p] = decode(update({ origin: 2, asPath: [65002, 65010], asSet: [65020, 65021], nextHop: "192.0.2.2", med: 50, localPref: 200, nlri: ["10.1.0.0/16"] })).paths;
    expect(p!.attrs).toEqual({ nextHop: "192.0.2.2", localPref: 200, asns: [65002, 65010, 65020, 65021], asPathLen: 3, origin: 2, med: 50, communities: [] });
    expect(decode(update({ nextHop: "192.0.2.2", nlri: ["10.1.0.0/16"] })).paths[0]!.attrs).toMatchObject({ med: 0, localPref: undefined, asPathLen: 0, origin: 0 });
  });

  it("reads IPv6 from MP_REACH (the global next hop of global + link-local) and withdraws from MP_UNREACH", () => {
    const got = decode(update({ origin: 0, asPath: [65002], mpReach: { nextHop: "fd00::2", linkLocal: "fe80::1", prefixes: ["2001:db8::/32", "2001:db8:1::/48", "::/0", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff/128"] } }), "fd00::2");
    const prefixes = ["2001:db8::/32", "2001:db8:1::/48", "::/0", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff/128"];
    expect(got.paths).toEqual(adjInPaths(prefixes.map((p) => from(announcedPath(p, "fd00::2", [65002]), "fd00::2"))));
    const w = decode(update({ mpUnreach: { afi: AFI_IPV6, prefixes: ["2001:db8:2::/48"] } }), "fd00::2");
    expect(w).toEqual({ paths: [{ neighbor: "fd00::2", prefix: "2001:db8:2::/48", attrs: undefined }] });
  });

  it("prints IPv6 addresses as Go does: the longest zero run compressed (the first of equal ones), single zeros kept", () => {
    const got = decode(update({ origin: 0, mpReach: { nextHop: "fd00:0:0:1::2", prefixes: ["2001:db8:0:1:0:0:0:0/64", "2001:0:0:1:0:0:1:0/128", "1:0:1:0:1:0:1:0/128"] } }), "fd00::2");
    expect(got.paths.map((p) => p.prefix)).toEqual(["2001:db8:0:1::/64", "2001::1:0:0:1:0/128", "1:0:1:0:1:0:1:0/128"]);
    expect(got.paths[0]!.attrs!.nextHop).toBe("fd00:0:0:1::2");
  });

  it("gives consecutive UPDATEs with equal attributes one attribute object (a memo per stream), and a changed one its own", () => {
    const memo = {};
    const one = (prefix: string, med: number) => {
      const b = update({ origin: 0, asPath: [65002], nextHop: "192.0.2.2", med, nlri: [prefix] });
      return decodeUpdate(b, 0, b.length, "192.0.2.2", false, memo).paths[0]!.attrs;
    };
    const [a, b, c] = [one("10.0.0.0/24", 5), one("10.0.1.0/24", 5), one("10.0.2.0/24", 6)];
    expect(b).toBe(a);
    expect(c).not.toBe(a);
    expect(c?.med).toBe(6);
  });

  it("reads withdrawn routes beside announcements", () => {
    const got = decode(update({ withdrawn: ["10.9.0.0/24", "10.9.1.0/24"], origin: 0, nextHop: "192.0.2.2", nlri: ["10.9.2.0/24"] }));
    expect(got.paths.map((p) => [p.prefix, p.attrs === undefined])).toEqual([["10.9.0.0/24", true], ["10.9.1.0/24", true], ["10.9.2.0/24", false]]);
  });

  it("tells End-of-RIB markers (IPv4: an empty UPDATE; IPv6: an empty MP_UNREACH)", () => {
    expect(decode(update({}))).toEqual({ paths: [], endOfRib: AFI_IPV4 });
    expect(decode(update({ mpUnreach: { afi: AFI_IPV6, prefixes: [] } }))).toEqual({ paths: [], endOfRib: AFI_IPV6 });
  });

  it("reads 2-byte AS paths with AS4_PATH merged (RFC 6793) when the session has no 4-byte AS numbers", () => {
    const got = decode(update({ origin: 0, twoByte: true, asPath: [65002, 23456, 23456], as4: [4200000000, 4200000001], nextHop: "192.0.2.2", nlri: ["10.2.0.0/16"] }), "192.0.2.2", true);
    expect(got.paths[0]!.attrs).toMatchObject({ asns: [65002, 4200000000, 4200000001], asPathLen: 3 });
    const plain = decode(update({ origin: 0, twoByte: true, asPath: [65002, 65003], nextHop: "192.0.2.2", nlri: ["10.2.0.0/16"] }), "192.0.2.2", true);
    expect(plain.paths[0]!.attrs).toMatchObject({ asns: [65002, 65003], asPathLen: 2 });
  });

  it("refuses NLRI longer than its family and lengths past the message", () => {
    const bad = update({ origin: 0, nextHop: "192.0.2.2", nlri: ["10.0.0.0/24"] });
    bad[bad.length - 4] = 33;
    expect(() => decode(bad)).toThrow(/exceeds/);
    const short = update({ origin: 0, nextHop: "192.0.2.2", nlri: ["10.0.0.0/24"] }).subarray(0, 25);
    expect(() => decode(short)).toThrow(/exceed/);
  });

  it("gives nothing for other messages (a KEEPALIVE)", () => {
    expect(decode(Buffer.concat([Buffer.alloc(16, 0xff), u16(19), u8(4)]))).toEqual({ paths: [] });
  });
});
