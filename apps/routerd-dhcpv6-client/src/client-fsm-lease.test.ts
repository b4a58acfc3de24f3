// After binding: Renew at T1, Rebind at T2, expiry, NoBinding, prefix change, release, stateless mode.
import { describe, expect, it } from "vitest";
import { MessageType, StatusCode } from "./constants.js";
import type { ClientEvent } from "./events.js";
import { findOption } from "./options.js";
import { SERVER_A, SERVER_B, Sim, answer, boundSim, config, iaPd, prefixesIn, status } from "./testing/fsm-sim.js";

const P1 = { prefix: "2001:db8:1000::" };
const P2 = { prefix: "2001:db8:2000::" };

function eventOf<T extends ClientEvent["type"]>(sim: Sim, type: T): Extract<ClientEvent, { type: T }> {
  const e = sim.events.find((x): x is Extract<ClientEvent, { type: T }> => x.type === type);
  if (!e) throw new Error(`no ${type} event in ${sim.eventTypes().join(",")}`);
  return e;
}

describe("Renew and Rebind", () => {
  it("renews at T1 with the server id and current prefixes, and reschedules from the Reply", () => {
    const sim = boundSim();
    const boundAt = sim.now;
    sim.advanceTo(boundAt + 100_000 - 1);
    expect(sim.sentOf("renew")).toHaveLength(0);
    sim.advanceTo(boundAt + 100_000);
    const renew = sim.last();
    expect(renew.message.type).toBe(MessageType.RENEW);
    expect(findOption(renew.message.options, "server-id")?.duid).toEqual(SERVER_A);
    expect(prefixesIn(renew.message)).toEqual(["2001:db8:1000::/56"]);
    sim.deliver(answer(renew, { ias: [iaPd([P1])] }));
    expect(eventOf(sim, "renewed").via).toBe("renew");
    expect(sim.state.phase).toBe("bound");
    expect(sim.timers.get("renew")).toBe(sim.now + 100_000);
  });

  it("retransmits Renew from REN_TIMEOUT and switches to Rebind (no server id) at T2", () => {
    const sim = boundSim({ t1: 100, t2: 200 });
    const boundAt = sim.now;
    sim.advanceTo(boundAt + 200_000 - 1);
    const renews = sim.sentOf("renew");
    expect(renews.length).toBeGreaterThanOrEqual(3);
    const gap = renews[1]!.at - renews[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(9000 - 1);
    expect(gap).toBeLessThanOrEqual(11000 + 1);
    sim.advanceTo(boundAt + 200_000);
    const rebind = sim.last();
    expect(rebind.message.type).toBe(MessageType.REBIND);
    expect(findOption(rebind.message.options, "server-id")).toBeUndefined();
    // Any server may answer a Rebind.
    sim.deliver(answer(rebind, { serverId: SERVER_B, ias: [iaPd([P1])] }));
    expect(eventOf(sim, "renewed").via).toBe("rebind");
    expect(sim.state.lease?.serverId).toBe(Buffer.from(SERVER_B).toString("hex"));
  });

  it("expires the lease when Rebind gets no answer until the valid lifetime ends, then solicits with the old prefix as hint", () => {
    const sim = boundSim({ prefix: { prefix: "2001:db8:1000::", preferred: 300, valid: 600 } });
    const boundAt = sim.now;
    sim.advanceTo(boundAt + 600_000 - 1);
    expect(sim.state.phase).toBe("rebind");
    expect(sim.events.map((e) => e.type)).toEqual(["acquired"]);
    sim.advanceTo(boundAt + 600_000);
    expect(eventOf(sim, "expired").removed).toEqual(["2001:db8:1000::/56"]);
    expect(sim.state.lease).toBeUndefined();
    const sol = sim.last();
    expect(sol.message.type).toBe(MessageType.SOLICIT);
    expect(prefixesIn(sol.message)).toEqual(["2001:db8:1000::/56"]);
    expect(sim.persisted.at(-1)).toEqual({ lease: undefined, lastPrefix: { prefix: "2001:db8:1000::", length: 56 } });
  });

  it("sends Request with the current prefixes when the Renew Reply says NoBinding", () => {
    const sim = boundSim();
    sim.advance(100_000);
    sim.deliver(answer(sim.last(), { ias: [iaPd([], { status: StatusCode.NoBinding })] }));
    const req = sim.last();
    expect(req.message.type).toBe(MessageType.REQUEST);
    expect(prefixesIn(req.message)).toEqual(["2001:db8:1000::/56"]);
    sim.deliver(answer(req, { ias: [iaPd([P1])] }));
    expect(eventOf(sim, "renewed").via).toBe("request");
  });

  it("reports a changed prefix when the Reply brings a new prefix and the old one with lifetime 0", () => {
    const sim = boundSim();
    sim.advance(100_000);
    sim.deliver(answer(sim.last(), { ias: [iaPd([P2, { ...P1, preferred: 0, valid: 0 }])] }));
    const changed = eventOf(sim, "changed");
    expect(changed.added).toEqual(["2001:db8:2000::/56"]);
    expect(changed.removed).toEqual(["2001:db8:1000::/56"]);
    expect(sim.state.lease?.prefixes.map((p) => p.prefix)).toEqual(["2001:db8:2000::"]);
    expect(sim.state.lastPrefix).toEqual({ prefix: "2001:db8:2000::", length: 56 });
  });

  it("reports lost and solicits again when the server withdraws every prefix", () => {
    const sim = boundSim();
    sim.advance(100_000);
    sim.deliver(answer(sim.last(), { ias: [iaPd([{ ...P1, preferred: 0, valid: 0 }])] }));
    expect(eventOf(sim, "lost").removed).toEqual(["2001:db8:1000::/56"]);
    expect(sim.state.phase).toBe("solicit");
    expect(sim.state.lease).toBeUndefined();
  });

  it("keeps retransmitting when a Renew Reply lacks our IA", () => {
    const sim = boundSim();
    sim.advance(100_000);
    sim.deliver(answer(sim.last(), {}));
    expect(sim.state.phase).toBe("renew");
    expect(sim.events.map((e) => e.type)).toEqual(["acquired"]);
  });

  it("drops one expired prefix of several with a changed event", () => {
    const sim = new Sim(config(), 9).start();
    sim.deliver(answer(sim.last(), { type: MessageType.ADVERTISE, ias: [iaPd([P1])], extra: [{ kind: "preference", value: 255 }] }));
    sim.deliver(answer(sim.last(), { ias: [iaPd([{ ...P1, preferred: 50, valid: 60 }, { ...P2, preferred: 500, valid: 1000 }], { t1: 400, t2: 800 })] }));
    sim.advance(60_000);
    const changed = eventOf(sim, "changed");
    expect(changed.removed).toEqual(["2001:db8:1000::/56"]);
    expect(changed.added).toEqual([]);
    expect(sim.state.phase).toBe("bound");
  });

  it("renews at once on request and never renews an infinite lease by timer", () => {
    const sim = boundSim({ prefix: { prefix: "2001:db8:1000::", preferred: 0xffffffff, valid: 0xffffffff }, t1: 0xffffffff, t2: 0xffffffff });
    expect(sim.timers.size).toBe(0);
    sim.dispatch({ type: "renew", now: sim.now });
    expect(sim.last().message.type).toBe(MessageType.RENEW);
  });
});

describe("Release and stop", () => {
  it("stops using the prefixes, sends Release to the server and stops on its Reply", () => {
    const sim = boundSim();
    sim.dispatch({ type: "release", now: sim.now, then: "stop" });
    expect(eventOf(sim, "released").removed).toEqual(["2001:db8:1000::/56"]);
    const rel = sim.last();
    expect(rel.message.type).toBe(MessageType.RELEASE);
    expect(findOption(rel.message.options, "server-id")?.duid).toEqual(SERVER_A);
    expect(findOption(rel.message.options, "oro")).toBeUndefined();
    expect(prefixesIn(rel.message)).toEqual(["2001:db8:1000::/56"]);
    expect(sim.stopped).toBe(false);
    sim.deliver(answer(rel, { extra: [status(StatusCode.Success)] }));
    expect(sim.stopped).toBe(true);
    expect(sim.timers.size).toBe(0);
    expect(sim.persisted.at(-1)).toEqual({ lease: undefined, lastPrefix: { prefix: "2001:db8:1000::", length: 56 } });
  });

  it("gives up the Release after REL_MAX_RC transmissions", () => {
    const sim = boundSim();
    sim.dispatch({ type: "release", now: sim.now, then: "stop" });
    sim.advance(120_000);
    expect(sim.sentOf("release")).toHaveLength(4);
    expect(sim.stopped).toBe(true);
  });

  it("release then idle: stays quiet until renew, which solicits with the released prefix as hint", () => {
    const sim = boundSim();
    sim.dispatch({ type: "release", now: sim.now, then: "idle" });
    sim.deliver(answer(sim.last()));
    expect(sim.state.phase).toBe("idle");
    const count = sim.sent.length;
    sim.advance(3600_000);
    expect(sim.sent.length).toBe(count);
    sim.dispatch({ type: "renew", now: sim.now });
    expect(sim.last().message.type).toBe(MessageType.SOLICIT);
    expect(prefixesIn(sim.last().message)).toEqual(["2001:db8:1000::/56"]);
  });

  it("a release-and-stop before the socket is up stops at once and keeps the stored lease for the next start", () => {
    const lease = boundSim().state.lease!;
    const sim = new Sim(config(), 2, { lease });
    sim.dispatch({ type: "release", now: sim.now, then: "stop" });
    expect(sim.stopped).toBe(true);
    expect(sim.sent).toEqual([]);
    expect(sim.persisted).toEqual([]);
  });

  it("stop without release sends nothing and keeps the lease on record", () => {
    const sim = boundSim();
    const count = sim.sent.length;
    sim.dispatch({ type: "stop", now: sim.now });
    expect(sim.sent.length).toBe(count);
    expect(sim.stopped).toBe(true);
    expect(sim.eventTypes()).toEqual(["acquired"]);
  });
});

describe("Information-request (stateless)", () => {
  it("reports DNS, search list, AFTR name and SNTP, then refreshes no sooner than IRT_MINIMUM", () => {
    const sim = new Sim(config({ mode: "information-only" })).start();
    sim.deliver(
      answer(sim.last(), {
        extra: [
          { kind: "dns-servers", addresses: ["2001:db8::53"] },
          { kind: "domain-list", names: ["example.net"] },
          { kind: "aftr-name", name: "aftr.example.net" },
          { kind: "sntp-servers", addresses: ["2001:db8::123"] },
          { kind: "information-refresh-time", seconds: 60 },
        ],
      }),
    );
    const info = eventOf(sim, "information").information;
    expect(info).toEqual({
      dnsServers: ["2001:db8::53"],
      domainSearch: ["example.net"],
      aftrName: "aftr.example.net",
      sntpServers: ["2001:db8::123"],
      refreshTime: 60,
    });
    expect(sim.timers.get("refresh")).toBe(sim.now + 600_000);
    sim.advance(600_000);
    expect(sim.last().message.type).toBe(MessageType.INFORMATION_REQUEST);
    expect(sim.sentOf("information-request")).toHaveLength(2);
  });

  it("defaults the refresh to IRT_DEFAULT (86400 s)", () => {
    const sim = new Sim(config({ mode: "information-only" })).start();
    sim.deliver(answer(sim.last()));
    expect(sim.timers.get("refresh")).toBe(sim.now + 86_400_000);
    expect(sim.eventTypes()).toEqual(["information"]);
  });
});

describe("renew requests while an exchange runs", () => {
  it("retransmits the running Renew at once (e.g. after the socket was re-bound)", () => {
    const sim = boundSim();
    sim.advance(100_000);
    const first = sim.last();
    sim.advance(1000);
    sim.dispatch({ type: "renew", now: sim.now });
    const again = sim.last();
    expect(again.exchange).toBe("renew");
    expect(again.attempt).toBe(2);
    expect(again.message.xid).toBe(first.message.xid);
    expect(findOption(again.message.options, "elapsed-time")?.centiseconds).toBe(100);
  });
});

describe("restart with a stored lease (RFC 8415 §18.2.12)", () => {
  function storedLease(validLeftMs: number) {
    const sim = boundSim({ prefix: { prefix: "2001:db8:1000::", preferred: 300, valid: 600 } });
    const lease = sim.state.lease!;
    const restartAt = lease.updatedAt + 600_000 - validLeftMs;
    return { lease, restartAt };
  }

  it("verifies a still-valid lease with REBIND (Confirm timing) and reports it as acquired", () => {
    const { lease, restartAt } = storedLease(300_000);
    const sim = new Sim(config(), 3, { lease, lastPrefix: { prefix: "2001:db8:1000::", length: 56 } });
    sim.now = restartAt;
    sim.start();
    const rebind = sim.last();
    expect(rebind.message.type).toBe(MessageType.REBIND);
    expect(findOption(rebind.message.options, "server-id")).toBeUndefined();
    expect(prefixesIn(rebind.message)).toEqual(["2001:db8:1000::/56"]);
    sim.fireNext();
    const gap = sim.last().at - rebind.at;
    expect(gap).toBeGreaterThanOrEqual(900 - 1);
    expect(gap).toBeLessThanOrEqual(1100 + 1);
    sim.deliver(answer(sim.last(), { ias: [iaPd([P1])] }));
    expect(sim.eventTypes()).toEqual(["acquired"]);
    expect(sim.state.phase).toBe("bound");
  });

  it("keeps using the stored lease when nobody answers within CNF_MAX_RD (10 s)", () => {
    const { lease, restartAt } = storedLease(300_000);
    const sim = new Sim(config(), 3, { lease });
    sim.now = restartAt;
    sim.start();
    sim.advance(10_000);
    const rebinds = sim.sentOf("rebind").filter((s) => s.at < restartAt + 10_000);
    expect(rebinds.length).toBeGreaterThanOrEqual(4);
    const gaps = rebinds.slice(1).map((s, i) => s.at - rebinds[i]!.at);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(4400 + 1);
    expect(sim.eventTypes()).toEqual(["acquired"]);
    expect(sim.state.lease?.prefixes.map((p) => p.prefix)).toEqual(["2001:db8:1000::"]);
    // T1 and T2 of the stored lease are long past: normal Rebind follows until the lease runs out.
    expect(sim.state.phase).toBe("rebind");
  });

  it("solicits with the stored prefix as hint when the stored lease has expired", () => {
    const { lease, restartAt } = storedLease(-1);
    const sim = new Sim(config(), 3, { lease, lastPrefix: { prefix: "2001:db8:1000::", length: 56 } });
    sim.now = restartAt;
    sim.start();
    expect(sim.last().message.type).toBe(MessageType.SOLICIT);
    expect(prefixesIn(sim.last().message)).toEqual(["2001:db8:1000::/56"]);
    expect(sim.state.lease).toBeUndefined();
  });

  it("verifies the binding with REBIND after a link change", () => {
    const sim = boundSim();
    sim.advance(5_000);
    sim.dispatch({ type: "link-change", now: sim.now });
    expect(sim.last().message.type).toBe(MessageType.REBIND);
    sim.deliver(answer(sim.last(), { ias: [iaPd([P1])] }));
    expect(eventOf(sim, "renewed").via).toBe("rebind");
  });
});
