// bfdd.conf rendering against a golden file (ROUTERD_UPDATE_GOLDEN=1 rewrites it), checked by FRR itself in
// test-e2e/bgp/bfd.test.ts (bfdd brings sessions up from it).
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseBgpConfig } from "../config/config.js";
import { renderBfddConfig } from "./render.js";

const GOLDEN = new URL("./testdata/bfdd.conf", import.meta.url);

describe("renderBfddConfig", () => {
  it("renders the used profiles and one peer per session (multihop ones marked), overrides only where they differ", () => {
    const text = renderBfddConfig("edge", [
      { name: "ix-bfd", spec: { peer: "2001:db8::2", profile: "slow", minTx: "2s" }, localAddress: "2001:db8::1" },
      { name: "isp-bfd", spec: { peer: "192.0.2.2", profile: "fast", detectMultiplier: 5, minRx: "100ms" }, localAddress: "192.0.2.1" },
      { name: "far-bfd", spec: { peer: "198.51.100.7", profile: "normal" }, localAddress: "192.0.2.1", multihop: true },
      { name: "far6-bfd", spec: { peer: "2001:db8:7::7", profile: "fast" }, localAddress: "2001:db8::1", multihop: true },
    ]);
    if (process.env.ROUTERD_UPDATE_GOLDEN === "1") writeFileSync(GOLDEN, text);
    expect(text).toBe(readFileSync(GOLDEN, "utf8"));
  });

  it("an empty set of sessions is an empty bfd node", () => {
    expect(renderBfddConfig("edge", [])).toMatch(/^!.*\nbfd\n!\n$/);
  });
});

describe("multihop from the BGPPeer", () => {
  const cfg = (ebgpMultihop?: number) =>
    parseBgpConfig({
      router: { name: "edge", spec: { asn: 65001, routerID: "192.0.2.1" } },
      peers: [{ name: "far", spec: { routerRef: "edge", peerASN: 65002, peers: ["198.51.100.7"], bfd: "far-bfd", ...(ebgpMultihop !== undefined ? { ebgpMultihop } : {}) } }],
      bfd: [{ name: "far-bfd", spec: { peer: "198.51.100.7" } }],
    });

  it("a BFD is multihop exactly when the BGPPeer naming it has ebgpMultihop > 1", () => {
    expect(cfg(2).bfd[0]!.multihop).toBe(true);
    expect(cfg(255).bfd[0]!.multihop).toBe(true);
    expect(cfg(1).bfd[0]!.multihop).toBeUndefined();
    expect(cfg().bfd[0]!.multihop).toBeUndefined();
  });
});
