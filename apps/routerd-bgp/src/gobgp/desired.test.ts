import { describe, expect, it } from "vitest";
import { parseBgpConfig } from "../config/config.js";
import { desiredBgp } from "./desired.js";

const config = (peers: unknown[], router: Record<string, unknown> = {}) =>
  parseBgpConfig({ router: { name: "edge", spec: { asn: 65001, routerID: "192.0.2.1", ...router } }, peers });

describe("desired GoBGP config", () => {
  it("one neighbor per address, timers from the profile, families from the address", () => {
    const d = desiredBgp(
      config([{ name: "isp", spec: { routerRef: "edge", peerASN: 65000, peers: ["192.0.2.2", "2001:db8::2"], timers: { profile: "fast" }, ebgpMultihop: 2, passiveMode: true } }]),
      new Map([["isp", "s3cret"]]),
    );
    expect([...d.neighbors.keys()]).toEqual(["192.0.2.2", "2001:db8::2"]);
    const n = d.neighbors.get("2001:db8::2")!.peer;
    expect(n.conf?.authPassword).toBe("s3cret");
    expect(n.timers?.config?.holdTime).toBe(9);
    expect(n.ebgpMultihop).toEqual({ enabled: true, multihopTtl: 2 });
    expect(n.transport?.passiveMode).toBe(true);
    expect(n.afiSafis[0]!.config!.family!.afi).toBe(2);
    expect(d.global.useMultiplePaths).toBe(true);
  });

  it("adding a neighbor leaves the others' digests as they were", () => {
    const one = desiredBgp(config([{ name: "a", spec: { routerRef: "edge", peerASN: 65000, peers: ["192.0.2.2"] } }]), new Map());
    const two = desiredBgp(
      config([
        { name: "a", spec: { routerRef: "edge", peerASN: 65000, peers: ["192.0.2.2"] } },
        { name: "b", spec: { routerRef: "edge", peerASN: 65002, peers: ["192.0.2.3"] } },
      ]),
      new Map(),
    );
    expect(two.neighbors.get("192.0.2.2")!.digest).toBe(one.neighbors.get("192.0.2.2")!.digest);
  });

  it("the peer's policy overrides the router's; both end up in the global assignments", () => {
    const d = desiredBgp(
      config(
        [
          { name: "a", spec: { routerRef: "edge", peerASN: 65000, peers: ["192.0.2.2"] } },
          { name: "b", spec: { routerRef: "edge", peerASN: 65002, peers: ["192.0.2.3"], importPolicy: { localPreference: 50 } } },
        ],
        { importPolicy: { localPreference: 200 }, listen: { port: 0 } },
      ),
      new Map(),
    );
    expect(d.importPolicies).toHaveLength(2);
    const pref = (addr: string) => d.policies.get(d.neighbors.get(addr)!.policies.split(",")[0]!)!.statements.at(-1)!.actions!.localPref!.value;
    expect(pref("192.0.2.2")).toBe(200);
    expect(pref("192.0.2.3")).toBe(50);
    expect(d.global.listenPort).toBe(-1);
  });

  it("a config naming another router, or one neighbor twice, is refused with the place", () => {
    expect(() => config([{ name: "a", spec: { routerRef: "core", peerASN: 1, peers: ["192.0.2.2"] } }])).toThrow(/peers.a: routerRef is core/);
    expect(() =>
      config([
        { name: "a", spec: { routerRef: "edge", peerASN: 1, peers: ["192.0.2.2"] } },
        { name: "b", spec: { routerRef: "edge", peerASN: 2, peers: ["192.0.2.2"] } },
      ]),
    ).toThrow(/neighbor 192.0.2.2 is also in a/);
    expect(() => config([{ name: "a", spec: { routerRef: "edge", peerASN: 1, peers: ["192.0.2.2"], bogus: 1 } }])).toThrow(/bogus/);
  });
});
