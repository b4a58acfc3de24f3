// TailscaleNode status fields from `tailscale status --json` (the shape of tailscale 1.x's ipnstate.Status).
import { describe, expect, it } from "vitest";
import { tailscaleStatusFacts } from "./tailscale.js";

describe("tailscaleStatusFacts", () => {
  it("reads the tailnet name and counts the peers", () => {
    const json = JSON.stringify({ BackendState: "Running", CurrentTailnet: { Name: "example.ts.net", MagicDNSSuffix: "tail1234.ts.net" }, Peer: { "nodekey:a": {}, "nodekey:b": {}, "nodekey:c": {} } });
    expect(tailscaleStatusFacts(json)).toEqual({ tailnetName: "example.ts.net", peerCount: 3 });
  });

  it("a node not logged in: no tailnet name, no peers (Peer is null)", () => {
    expect(tailscaleStatusFacts(JSON.stringify({ BackendState: "NeedsLogin", CurrentTailnet: null, Peer: null }))).toEqual({ peerCount: 0 });
  });

  it("falls back to the MagicDNS suffix when CurrentTailnet is missing (older tailscale)", () => {
    expect(tailscaleStatusFacts(JSON.stringify({ MagicDNSSuffix: "tail1234.ts.net", Peer: {} }))).toEqual({ tailnetName: "tail1234.ts.net", peerCount: 0 });
  });
});
