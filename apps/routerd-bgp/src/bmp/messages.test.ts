// BMP messages as gobgpd 3.10 sent them (testdata/capture.mjs: a live session, then a second station's
// initial dump): decoded, split across any read boundary.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { communityValue } from "../gobgp/attrs.js";
import { BmpReader, decodeBmp, type BmpEvent } from "./messages.js";

const captured = (name: string) => Buffer.from(readFileSync(new URL(`testdata/gobgpd-3.10-${name}.hex`, import.meta.url), "utf8").replace(/\s/g, ""), "hex");

function events(stream: Buffer, readSize = stream.length): BmpEvent[] {
  const out: BmpEvent[] = [];
  const memo = {};
  const reader = new BmpReader((buf, start, end) => {
    const ev = decodeBmp(buf, start, end, memo);
    if (ev !== undefined) out.push(ev);
  });
  for (let i = 0; i < stream.length; i += readSize) reader.push(stream.subarray(i, i + readSize));
  return out;
}

/** A compact view: type, neighbor, prefixes (withdrawn marked "-"), End-of-RIB. */
const brief = (evs: BmpEvent[]) =>
  evs.map((e) => {
    if (e.type === "route") return ["route", e.neighbor, ...e.paths.map((p) => (p.attrs === undefined ? "-" : "") + p.prefix), ...(e.endOfRib ? [e.endOfRib] : [])].join(" ");
    if (e.type === "peer-up") return `peer-up ${e.neighbor} ${e.families.join(",")}`;
    if (e.type === "peer-down") return `peer-down ${e.neighbor}`;
    return e.type;
  });

describe("BMP from gobgpd 3.10", () => {
  it("a live session: Peer Ups (with the families of the OPEN sent), UPDATEs, withdraws, a Peer Down", () => {
    const evs = events(captured("live"));
    expect(brief(evs)).toEqual([
      "initiation",
      "peer-up fd99::2 2",
      "route fd99::2 2001:db8:99::/48",
      "route fd99::2 2001:db8:98::/48",
      "peer-up 10.99.0.2 1",
      "route 10.99.0.2 172.30.2.0/24 172.30.1.0/24",
      "route 10.99.0.2 172.30.3.0/25",
      "route 10.99.0.2 -172.30.2.0/24",
      "route fd99::2 -2001:db8:98::/48",
      "peer-down 10.99.0.2",
    ]);
    const v4 = evs[5]!.type === "route" ? evs[5]!.paths : [];
    // (The peer put its own AS in front; the gobgp CLI's default origin is incomplete.)
    expect(v4[0]!.attrs).toEqual({ nextHop: "10.99.0.2", localPref: undefined, asns: [65002, 65002, 4200000000], asPathLen: 3, origin: 2, med: 50, communities: [communityValue("65002:7")] });
    expect(v4[1]!.attrs).toBe(v4[0]!.attrs);
    const v6 = evs[2]!.type === "route" ? evs[2]!.paths : [];
    expect(v6[0]).toEqual({ neighbor: "fd99::2", prefix: "2001:db8:99::/48", attrs: expect.objectContaining({ nextHop: "fd99::2", asns: [65002] }) });
  });

  it("a station connecting later: Peer Ups first, then each neighbor's table one path an UPDATE and an End-of-RIB, then a Termination", () => {
    expect(brief(events(captured("init")))).toEqual([
      "initiation",
      "peer-up 10.99.0.2 1",
      "peer-up fd99::2 2",
      "route 10.99.0.2 172.30.1.0/24",
      "route 10.99.0.2 172.30.3.0/25",
      "route 10.99.0.2 1",
      "route fd99::2 2001:db8:99::/48",
      "route fd99::2 2",
      "peer-down 10.99.0.2",
      "termination",
    ]);
  });

  it("the snapshot's one-path UPDATEs with equal attributes share one attribute object (the RIB then one path object)", () => {
    const evs = events(captured("init")).filter((e) => e.type === "route" && e.paths.length > 0);
    const paths = evs.flatMap((e) => (e.type === "route" ? e.paths : []));
    expect(paths.map((p) => p.prefix)).toEqual(["172.30.1.0/24", "172.30.3.0/25", "2001:db8:99::/48"]);
    // 172.30.1.0/24 and 172.30.3.0/25 differ (MED, communities): two objects; equal ones are shared (update.test.ts).
    expect(paths[0]!.attrs).not.toBe(paths[1]!.attrs);
  });

  it("the same events whatever the reads' sizes", () => {
    const stream = captured("live");
    const whole = events(stream);
    for (const size of [1, 5, 6, 7, 64, 333]) expect(events(stream, size)).toEqual(whole);
  });

  it("refuses another BMP version", () => {
    const b = captured("live");
    b[0] = 1;
    expect(() => events(b)).toThrow(/version/);
  });
});
