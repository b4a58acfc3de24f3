// The snapshot at the start of a BMP connection and what follows it, as BmpFeed hands them to the router.
import { describe, expect, it } from "vitest";
import type { AdjInPath } from "../rib/attrs.js";
import { BmpFeed } from "./feed.js";
import type { BmpEvent } from "./messages.js";
import { AFI_IPV4, AFI_IPV6 } from "./update.js";

const attrs = { nextHop: "192.0.2.2", localPref: undefined, asns: [], asPathLen: 0, origin: 0, med: 0, communities: [] };
const path = (neighbor: string, prefix: string, withdrawn = false): AdjInPath => ({ neighbor, prefix, attrs: withdrawn ? undefined : attrs });
const route = (neighbor: string, ...paths: AdjInPath[]): BmpEvent => ({ type: "route", neighbor, paths, endOfRib: undefined });
const eor = (neighbor: string, afi = AFI_IPV4): BmpEvent => ({ type: "route", neighbor, paths: [], endOfRib: afi });
const up = (neighbor: string, families = [AFI_IPV4]): BmpEvent => ({ type: "peer-up", neighbor, families });
const down = (neighbor: string): BmpEvent => ({ type: "peer-down", neighbor });

function feed(established: string[]) {
  const calls: string[] = [];
  const f = new BmpFeed(
    {
      table: (paths, peers) => calls.push(`table [${paths.map((p) => p.prefix).join(" ")}] of [${peers.join(" ")}]`),
      paths: (paths) => calls.push(`paths ${paths.map((p) => (p.attrs ? "" : "-") + p.prefix).join(" ")}`),
      session: (n, isUp) => calls.push(`${isUp ? "up" : "down"} ${n}`),
    },
    new Set(established),
  );
  return { calls, send: (...evs: BmpEvent[]) => evs.forEach((e) => f.event(e)), f };
}

describe("BmpFeed", () => {
  it("nothing Established: an empty table at once, then everything live and in order", () => {
    const { calls, send } = feed([]);
    send({ type: "initiation" }, up("A"), route("A", path("A", "10.0.0.0/24"), path("A", "10.0.1.0/24")), route("A", path("A", "10.0.0.0/24", true)), down("A"));
    expect(calls).toEqual(["table [] of []", "up A", "paths 10.0.0.0/24 10.0.1.0/24", "paths -10.0.0.0/24", "down A"]);
  });

  it("hands over the dump whole once every snapshot neighbor's End-of-RIBs (one per family) are in", () => {
    const { calls, send } = feed(["A", "B"]);
    send({ type: "initiation" }, up("A"), up("B", [AFI_IPV4, AFI_IPV6]), up("C"));
    send(route("B", path("B", "10.1.0.0/24")), route("B"), eor("B"), route("A", path("A", "10.0.0.0/24")), eor("A"), route("B", path("B", "2001:db8::/32")));
    expect(calls).toEqual([]);
    send(eor("B", AFI_IPV6));
    expect(calls).toEqual(["table [10.1.0.0/24 10.0.0.0/24 2001:db8::/32] of [A B]", "up C"]);
    send(route("C", path("C", "10.2.0.0/24")));
    expect(calls.at(-1)).toBe("paths 10.2.0.0/24");
  });

  it("a session taken for the snapshot wrongly (no End-of-RIB will come) stops the wait: a withdraw or a multi-prefix UPDATE, its Peer Down", () => {
    const a = feed(["A"]);
    a.send({ type: "initiation" }, up("A"), route("A", path("A", "10.0.0.0/24"), path("A", "10.0.1.0/24")));
    expect(a.calls).toEqual(["table [] of [A]", "paths 10.0.0.0/24 10.0.1.0/24"]);
    const b = feed(["A"]);
    b.send({ type: "initiation" }, up("A"), route("A", path("A", "10.0.0.0/24")), down("A"));
    expect(b.calls).toEqual(["table [10.0.0.0/24] of [A]", "down A"]);
  });

  it("a quiet stream ends the wait with what arrived (the snapshot neighbor went down before the dump)", () => {
    const { calls, send, f } = feed(["A"]);
    send({ type: "initiation" });
    f.idle();
    expect(calls).toEqual(["table [] of []"]);
    send(up("A"), route("A", path("A", "10.0.0.0/24")));
    expect(calls.slice(1)).toEqual(["up A", "paths 10.0.0.0/24"]);
    f.idle();
    expect(calls).toHaveLength(3);
  });
});
