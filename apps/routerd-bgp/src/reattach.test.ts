// The re-attach rule: routes the kernel has and a re-attached gobgpd's RIB lacks are kept until every
// neighbor waited for has relearned its table, or the stale hold (counted from gobgpd's start) is over.
import { describe, expect, it } from "vitest";
import { PeerState_SessionState, type Peer } from "@routerd/gobgp-api/gen/gobgp";
import type { BgpConfig } from "./config/config.js";
import type { DesiredBgp } from "./gobgp/desired.js";
import { PeerTable } from "./peers.js";
import { reattachHold } from "./reattach.js";

const HOLD = 120_000;
const QUIET = 1000;
const SILENT = 10_000;
const NOW = 1_000_000_000;

const table = (...addresses: string[]) => {
  const t = new PeerTable();
  t.configure({ peers: [] } as unknown as BgpConfig, { neighbors: new Map(addresses.map((a) => [a, { owner: "p" }])) } as unknown as DesiredBgp);
  return t;
};
/** A ListPeer entry: Established since `upAt` (GoBGP's whole seconds), or not Established. */
const listed = (address: string, upAt?: number) =>
  ({
    state: { neighborAddress: address, sessionState: upAt === undefined ? PeerState_SessionState.ACTIVE : PeerState_SessionState.ESTABLISHED },
    timers: upAt === undefined ? undefined : { state: { uptime: new Date(Math.floor(upAt / 1000) * 1000) } },
  }) as unknown as Peer;

/** What the re-attach does: the watch's states, GoBGP's uptimes, then the hold. */
function reattach(t: PeerTable, peers: Peer[], gobgpdStartedAt: number | undefined) {
  for (const p of peers) t.observe(p, NOW);
  t.sessionsUp(peers, NOW);
  return reattachHold({ now: NOW, gobgpdStartedAt, staleHoldMs: HOLD, neighbors: peers.map((p) => ({ address: p.state!.neighborAddress, established: p.state!.sessionState === PeerState_SessionState.ESTABLISHED })) });
}

describe("re-attach: whom to wait for before retained routes are swept", () => {
  it("a gobgpd of long standing with sessions up for long: settled at once (the RIB is the truth)", () => {
    const t = table("10.0.0.1", "10.0.0.2");
    const hold = reattach(t, [listed("10.0.0.1", NOW - 600_000), listed("10.0.0.2", NOW - 300_000)], NOW - 900_000);
    expect(hold).toMatchObject({ young: false, holdingSince: NOW });
    expect([...hold.waitFor].sort()).toEqual(["10.0.0.1", "10.0.0.2"]);
    // GoBGP's uptime, not the re-attach, is when the session came up.
    expect(t.list()[0]!.establishedAt).toBeLessThanOrEqual(NOW - 599_000);
    expect(t.relearned(NOW, QUIET, SILENT, hold.waitFor)).toBe(true);
  });

  it("a gobgpd that only just started: every neighbor is waited for, the hold counts from gobgpd's start", () => {
    const t = table("10.0.0.1", "10.0.0.2");
    const started = NOW - 3000;
    const hold = reattach(t, [listed("10.0.0.1", NOW - 2000), listed("10.0.0.2")], started);
    expect(hold).toMatchObject({ young: true, holdingSince: started });
    expect(hold.waitFor).toEqual(new Set(["10.0.0.1", "10.0.0.2"]));
    t.heard("10.0.0.1", NOW); // its listed table
    expect(t.relearned(NOW + 5000, QUIET, SILENT, hold.waitFor)).toBe(false); // 10.0.0.2 not up yet
    t.observe(listed("10.0.0.2", NOW + 6000), NOW + 6000);
    t.heard("10.0.0.2", NOW + 6500);
    expect(t.relearned(NOW + 7000, QUIET, SILENT, hold.waitFor)).toBe(false); // still arriving
    expect(t.relearned(NOW + 7500, QUIET, SILENT, hold.waitFor)).toBe(true);
  });

  it("a session that only just came up in an old gobgpd is waited for until its paths are quiet", () => {
    const t = table("10.0.0.1", "10.0.0.2");
    const hold = reattach(t, [listed("10.0.0.1", NOW - 600_000), listed("10.0.0.2", NOW - 2000)], NOW - 900_000);
    expect(hold.young).toBe(false);
    expect(t.relearned(NOW, QUIET, SILENT, hold.waitFor)).toBe(false);
    t.heard("10.0.0.2", NOW + 100); // still sending after the listing
    expect(t.relearned(NOW + 1000, QUIET, SILENT, hold.waitFor)).toBe(false);
    expect(t.relearned(NOW + 1100, QUIET, SILENT, hold.waitFor)).toBe(true);
  });

  it("a neighbor down in an old gobgpd lost its session: not waited for (its routes go, as they would have)", () => {
    const t = table("10.0.0.1", "10.0.0.2");
    const hold = reattach(t, [listed("10.0.0.1", NOW - 600_000), listed("10.0.0.2")], NOW - HOLD);
    expect(hold.waitFor).toEqual(new Set(["10.0.0.1"]));
    expect(t.relearned(NOW, QUIET, SILENT, hold.waitFor)).toBe(true);
    expect(t.relearned(NOW, QUIET, SILENT)).toBe(false); // (all of them would wait for 10.0.0.2)
  });

  it("gobgpd's age unknown: treated as young, the hold counts from now", () => {
    const hold = reattach(table("10.0.0.1"), [listed("10.0.0.1")], undefined);
    expect(hold).toMatchObject({ young: true, holdingSince: NOW });
    expect(hold.waitFor).toEqual(new Set(["10.0.0.1"]));
  });

  it("an uptime GoBGP reports before the watch says Established is used once it does", () => {
    const t = table("10.0.0.1");
    t.sessionsUp([listed("10.0.0.1", NOW - 60_000)], NOW);
    t.observe(listed("10.0.0.1", NOW - 60_000), NOW + 10);
    expect(t.list()[0]!.establishedAt).toBe(Math.floor((NOW - 60_000) / 1000) * 1000 + 999);
  });
});
