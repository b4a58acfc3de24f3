// BFD: validation (tied to a BGPPeer naming it, peer among its neighbors, bfdd's interval range) and the
// timers each profile and override gives.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../load.js";
import { bfdTimers } from "./bfd.js";

const HEAD = "apiVersion: routerd.net/v1alpha1\nkind: Router\nmetadata: { name: bfd }\nspec:\n  resources:\n";
const doc = (kind: string, name: string, spec: string) => `    - apiVersion: net.routerd.net/v1alpha1\n      kind: ${kind}\n      metadata: { name: ${name} }\n      spec: ${spec}\n`;
const ROUTER = doc("BGPRouter", "edge", "{ asn: 65001, routerID: 192.0.2.1 }");
const peer = (extra = "bfd: isp-bfd") => doc("BGPPeer", "isp", `{ routerRef: edge, peerASN: 65002, peers: [192.0.2.2, 192.0.2.3], ${extra} }`);
const errors = (...resources: string[]) =>
  loadConfig(HEAD + ROUTER + resources.join(""), "router.yaml")
    .issues.filter((i) => i.severity === "error")
    .map((i) => `${i.resource} ${i.field}: ${i.message}`);

describe("BFD validation", () => {
  it("accepts a BFD named by a BGPPeer for one of its neighbors", () => {
    expect(errors(peer(), doc("BFD", "isp-bfd", "{ peer: 192.0.2.2, profile: fast }"))).toEqual([]);
    expect(errors(peer(), doc("BFD", "isp-bfd", "{ peer: 192.0.2.3, minRx: 50ms, minTx: 200ms, detectMultiplier: 4 }"))).toEqual([]);
    // ebgpMultihop > 1: a multihop BFD session (routerd-bgp renders `peer ... multihop local-address ...`).
    expect(errors(peer("bfd: isp-bfd, ebgpMultihop: 3"), doc("BFD", "isp-bfd", "{ peer: 192.0.2.2 }"))).toEqual([]);
  });

  it("refuses what cannot work, naming the field", () => {
    const cases: [string[], RegExp][] = [
      [[peer("ebgpMultihop: 1"), doc("BFD", "isp-bfd", "{ peer: 192.0.2.2 }")], /no BGPPeer names this BFD/],
      [[peer(), doc("BFD", "isp-bfd", "{ peer: 192.0.2.9 }")], /bfd: BFD\/isp-bfd watches 192.0.2.9, which is not one of peers/],
      [[peer(), doc("BFD", "isp-bfd", "{ peer: 192.0.2.2, minRx: 5ms }")], /minRx: 5ms is outside bfdd's range/],
      [[peer(), doc("BFD", "isp-bfd", "{ peer: 192.0.2.2, profile: turbo }")], /profile/],
      [[peer("bfd: nope")], /bfd: .*nope/],
    ];
    for (const [resources, message] of cases) expect(errors(...resources).join("\n"), resources.join("")).toMatch(message);
  });

  it("one BFD per neighbor and per BGPPeer", () => {
    const two = doc("BGPPeer", "isp2", "{ routerRef: edge, peerASN: 65003, peers: [192.0.2.4], bfd: isp-bfd }");
    expect(errors(peer(), two, doc("BFD", "isp-bfd", "{ peer: 192.0.2.2 }")).join("\n")).toMatch(/already used by BGPPeer\/isp/);
  });
});

describe("bfdTimers", () => {
  it("takes the profile's values and the overrides", () => {
    expect(bfdTimers({ peer: "192.0.2.2", profile: "normal" })).toEqual({ minRxMs: 300, minTxMs: 300, multiplier: 3 });
    expect(bfdTimers({ peer: "192.0.2.2", profile: "fast" })).toEqual({ minRxMs: 100, minTxMs: 100, multiplier: 3 });
    expect(bfdTimers({ peer: "192.0.2.2", profile: "slow", minTx: "2s", detectMultiplier: 5 })).toEqual({ minRxMs: 1000, minTxMs: 2000, multiplier: 5 });
  });
});
