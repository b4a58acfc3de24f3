// One decoder for GoBGP's path attributes: the FIB's best-path input (adjInPaths) and the route listing
// (pathDetails) read the same values from the same path, a missing MED included (0, RFC 4271 9.1.2.2 (c)).
import { LocalPrefAttribute, MultiExitDiscAttribute } from "@routerd/gobgp-api/gen/attribute";
import { describe, expect, it } from "vitest";
import { adjInPaths } from "../rib/attrs.js";
import { DEFAULT_LOCAL_PREF, MISSING_MED, TYPE_PREFIX, communityText, communityValue, decodePathAttrs } from "./attrs.js";
import { announcedPath, pathDetails } from "./codec.js";

const any = (name: string, value: Uint8Array) => ({ typeUrl: TYPE_PREFIX + name, value: Buffer.from(value) });
const med = (n: number) => any("MultiExitDiscAttribute", MultiExitDiscAttribute.encode({ med: n }).finish());
const localPref = (n: number) => any("LocalPrefAttribute", LocalPrefAttribute.encode({ localPref: n }).finish());

function path(prefix: string, extra: ReturnType<typeof any>[] = []) {
  const p = announcedPath(prefix, prefix.includes(":") ? "fd00::2" : "192.0.2.2", [65002, 65010], [communityValue("65002:7"), communityValue("no-export")]);
  return { ...p, pattrs: [...p.pattrs, ...extra], neighborIp: "192.0.2.2", best: true };
}

describe("decodePathAttrs", () => {
  it("decodes next hop (IPv4 and the IPv6 global one), origin, AS path, communities, MED and LOCAL_PREF", () => {
    expect(decodePathAttrs(path("10.0.0.0/24", [med(50), localPref(200)]).pattrs)).toEqual({
      nextHop: "192.0.2.2",
      localPref: 200,
      asns: [65002, 65010],
      asPathLen: 2,
      origin: 0,
      med: 50,
      communities: [communityValue("65002:7"), 0xffffff01],
    });
    expect(decodePathAttrs(path("2001:db8::/32").pattrs).nextHop).toBe("fd00::2");
  });

  it("a missing MED is 0 and a missing LOCAL_PREF is left to the default (100)", () => {
    const a = decodePathAttrs(path("10.0.0.0/24").pattrs);
    expect(a.med).toBe(MISSING_MED);
    expect(MISSING_MED).toBe(0);
    expect(a.localPref).toBeUndefined();
    expect(DEFAULT_LOCAL_PREF).toBe(100);
  });

  it("ignores attributes it does not use and foreign type URLs", () => {
    const p = path("10.0.0.0/24", [{ typeUrl: "type.example/other.MultiExitDiscAttribute", value: Buffer.from([8, 9]) }, any("AggregatorAttribute", new Uint8Array())]);
    expect(decodePathAttrs(p.pattrs).med).toBe(0);
  });
});

describe("the FIB and the listing agree", () => {
  it.each([["with a MED", [med(30)]], ["without a MED", []]] as const)("%s", (_, extra) => {
    const p = path("10.0.0.0/24", [...extra]);
    const fib = adjInPaths([p])[0]!.attrs!;
    const listed = pathDetails(p)!;
    expect(listed.med).toBe(fib.med);
    expect(listed.asPath).toEqual(fib.asns);
    expect(listed.nextHop).toBe(fib.nextHop);
    expect(listed.localPref).toBe(fib.localPref);
    expect(listed.communities).toEqual(fib.communities.map(communityText));
    expect(listed).toMatchObject({ prefix: "10.0.0.0/24", origin: "igp", communities: ["65002:7", "no-export"], best: true, withdraw: false, local: false });
  });
});

describe("communities", () => {
  it("round-trips numbers and well-known names", () => {
    for (const t of ["65002:7", "0:0", "65535:65535", "no-export", "graceful-shutdown", "blackhole"]) expect(communityText(communityValue(t))).toBe(t);
  });
});
