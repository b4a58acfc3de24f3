// The wire decoder of WatchEvent gives exactly what the generated decoder + adjInPaths give, on messages
// the generated encoder wrote: IPv4 paths sharing one UPDATE's attributes, IPv6 paths with their own
// MP_REACH, withdrawals, two neighbors, a non-prefix NLRI, and peer events.
import { PeerState_SessionState, WatchEventResponse, WatchEventResponse_PeerEvent_Type, type Path } from "@routerd/gobgp-api/gen/gobgp";
import { MultiExitDiscAttribute } from "@routerd/gobgp-api/gen/attribute";
import { describe, expect, it } from "vitest";
import { adjInPaths } from "../rib/attrs.js";
import { TYPE_PREFIX, communityValue } from "./attrs.js";
import { announcedPath } from "./codec.js";
import { decodeWatchEvent } from "./watch-decode.js";

const from = (p: Path, neighbor: string, over: Partial<Path> = {}): Path => ({ ...p, neighborIp: neighbor, ...over });
const encode = (paths: Path[]) => Buffer.from(WatchEventResponse.encode({ table: { paths } }).finish());

describe("decodeWatchEvent", () => {
  it("decodes an Adj-RIB-In table event as adjInPaths does, sharing one UPDATE's attributes", () => {
    const med = { typeUrl: TYPE_PREFIX + "MultiExitDiscAttribute", value: Buffer.from(MultiExitDiscAttribute.encode({ med: 7 }).finish()) };
    const paths = [
      from(announcedPath("10.0.0.0/24", "192.0.2.2", [65002, 65010], [communityValue("65002:7")]), "192.0.2.2"),
      from(announcedPath("10.0.1.0/24", "192.0.2.2", [65002, 65010], [communityValue("65002:7")]), "192.0.2.2"),
      from(announcedPath("10.0.3.0/24", "192.0.2.2", [65002]), "192.0.2.2", {}),
      from(announcedPath("10.0.4.0/24", "192.0.2.3", [65003]), "192.0.2.3"),
      from({ ...announcedPath("10.0.5.0/24", "192.0.2.3", [65003]) }, "192.0.2.3"),
      from(announcedPath("2001:db8::/32", "fd00::2", [65002]), "fd00::2"),
      from(announcedPath("2001:db8:1::/48", "fd00::2", [65002]), "fd00::2"),
      from(announcedPath("2001:db8:2::/48", "fd00::3", [65002]), "fd00::2"),
      from(announcedPath("10.0.2.0/24", "192.0.2.2"), "192.0.2.2", { isWithdraw: true }),
      from(announcedPath("10.0.6.0/24", "192.0.2.2"), "192.0.2.2", { nlri: { typeUrl: TYPE_PREFIX + "LabeledVPNIPAddressPrefix", value: Buffer.alloc(0) } }),
    ];
    paths[4]!.pattrs = [...paths[4]!.pattrs, med];
    const got = decodeWatchEvent(encode(paths)).paths!;
    expect(got).toEqual(adjInPaths(paths));
    expect(got.map((p) => p.prefix)).toEqual(["10.0.0.0/24", "10.0.1.0/24", "10.0.3.0/24", "10.0.4.0/24", "10.0.5.0/24", "2001:db8::/32", "2001:db8:1::/48", "2001:db8:2::/48", "10.0.2.0/24"]);
    expect(got[0]!.attrs).toBe(got[1]!.attrs);
    expect(got[2]!.attrs).not.toBe(got[1]!.attrs);
    expect(got[4]!.attrs?.med).toBe(7);
    expect(got[5]!.attrs).toBe(got[6]!.attrs);
    expect(got[7]!.attrs?.nextHop).toBe("fd00::3");
    expect(got[8]!.attrs).toBeUndefined();
  });

  it("decodes peer events with the generated decoder; an empty message is neither", () => {
    const buf = Buffer.from(
      WatchEventResponse.encode(WatchEventResponse.fromPartial({ peer: { type: WatchEventResponse_PeerEvent_Type.STATE, peer: { state: { neighborAddress: "192.0.2.2", sessionState: PeerState_SessionState.ESTABLISHED } } } })).finish(),
    );
    const ev = decodeWatchEvent(buf);
    expect(ev.peer?.type).toBe(WatchEventResponse_PeerEvent_Type.STATE);
    expect(ev.peer?.peer?.state?.neighborAddress).toBe("192.0.2.2");
    expect(decodeWatchEvent(Buffer.alloc(0))).toEqual({});
  });

  it("skips fields it does not read, 5-byte varints included (source ASN 2^32-1, identifiers)", () => {
    const p = from(announcedPath("10.9.0.0/24", "192.0.2.2", [4200000000]), "192.0.2.2", { sourceAsn: 2 ** 32 - 1, identifier: 2 ** 31 + 5, sourceId: "192.0.2.2", best: true });
    expect(decodeWatchEvent(encode([p])).paths).toEqual([{ neighbor: "192.0.2.2", prefix: "10.9.0.0/24", attrs: expect.objectContaining({ asns: [4200000000], nextHop: "192.0.2.2" }) }]);
  });

  it("writes each prefix as one flat string, every length from /0 to /128", () => {
    const prefixes = ["0.0.0.0/0", "10.0.0.0/8", "192.0.2.1/32", "::/0", "2001:db8::/32", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff/128"];
    const paths = prefixes.map((p) => from(announcedPath(p, p.includes(":") ? "fd00::2" : "192.0.2.2"), "192.0.2.2"));
    const got = decodeWatchEvent(encode(paths)).paths!;
    expect(got).toEqual(adjInPaths(paths));
    expect(got.map((p) => p.prefix)).toEqual(prefixes);
  });
});

