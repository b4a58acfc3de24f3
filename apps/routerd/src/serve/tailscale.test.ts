// TailscaleNode status fields from `tailscale status --json` (the shape of tailscale 1.x's ipnstate.Status).
import { describe, expect, it } from "vitest";
import { tailscaleBackendState, tailscaleStatusFacts } from "./tailscale.js";

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

describe("tailscaleBackendState", () => {
  it("reads BackendState: NeedsLogin is what a logged-out node (or a wiped state) reports", () => {
    expect(tailscaleBackendState(JSON.stringify({ BackendState: "NeedsLogin", Peer: null }))).toBe("NeedsLogin");
    expect(tailscaleBackendState(JSON.stringify({ BackendState: "Running" }))).toBe("Running");
    expect(tailscaleBackendState("{}")).toBeUndefined();
  });
});
