// When a fresh gobgpd has relearned the table (retained FIB routes may then be swept): every neighbor
// Established and either quiet after its paths or silent for long (it announces nothing).
import { describe, expect, it } from "vitest";
import { PeerState_SessionState, type Peer } from "@routerd/gobgp-api/gen/gobgp";
import type { BgpConfig } from "./config/config.js";
import type { DesiredBgp } from "./gobgp/desired.js";
import { PeerTable } from "./peers.js";

const ESTABLISHED = PeerState_SessionState.ESTABLISHED;
const table = (...addresses: string[]) => {
  const t = new PeerTable();
  const neighbors = new Map(addresses.map((a) => [a, { owner: "p" }]));
  t.configure({ peers: [] } as unknown as BgpConfig, { neighbors } as unknown as DesiredBgp);
  return t;
};
const up = (t: PeerTable, address: string, at: number) => t.observe({ state: { neighborAddress: address, sessionState: ESTABLISHED } } as unknown as Peer, at);

describe("PeerTable.relearned", () => {
  it("waits for every neighbor, and for each one's paths to go quiet after its session came up", () => {
    const t = table("10.0.0.1", "10.0.0.2");
    expect(up(t, "10.0.0.1", 1000)?.to).toBe("Established");
    expect(t.relearned(5000, 1000, 10_000)).toBe(false); // 10.0.0.2 not up
    up(t, "10.0.0.2", 1000);
    t.heard("10.0.0.1", 1500);
    expect(t.relearned(2000, 1000, 10_000)).toBe(false); // 10.0.0.2 has sent nothing yet
    t.heard("10.0.0.2", 2500);
    expect(t.relearned(3000, 1000, 10_000)).toBe(false); // still arriving
    expect(t.relearned(3500, 1000, 10_000)).toBe(true);
  });

  it("paths heard before the session came up do not count; a silent neighbor is waited for silentMs", () => {
    const t = table("10.0.0.1");
    t.heard("10.0.0.1", 500);
    up(t, "10.0.0.1", 1000);
    expect(t.relearned(5000, 1000, 10_000)).toBe(false);
    expect(t.relearned(11_000, 1000, 10_000)).toBe(true);
  });
});

describe("PeerTable.counts", () => {
  const reply = (received: number, accepted: number, advertised: number) =>
    [{ conf: { neighborAddress: "10.0.0.1" }, afiSafis: [{ state: { received, accepted, advertised } }] }] as unknown as Peer[];

  it("keeps the last advertised count when the reply was asked without it (a poll during a table load)", () => {
    const t = table("10.0.0.1");
    t.counts(reply(10, 9, 4));
    t.counts(reply(20, 19, 0), false);
    expect(t.list()[0]).toMatchObject({ received: 20, accepted: 19, advertised: 4 });
    t.counts(reply(20, 19, 7));
    expect(t.list()[0]).toMatchObject({ advertised: 7 });
  });
});
