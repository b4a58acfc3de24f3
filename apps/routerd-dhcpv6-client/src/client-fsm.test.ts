// Acquisition: Solicit retransmission, server selection, Request retransmission, rapid commit, checks.
import { describe, expect, it } from "vitest";
import { MessageType, OptionCode, StatusCode } from "./constants.js";
import { findOption, findOptions } from "./options.js";
import {
  CLIENT_DUID,
  SERVER_A,
  SERVER_B,
  Sim,
  T0,
  advertise,
  answer,
  config,
  iaPd,
  prefixesIn,
  status,
} from "./testing/fsm-sim.js";

describe("Solicit", () => {
  it("sends a Solicit at once with client id, elapsed time 0, ORO, IA_PD length hint", () => {
    const sim = new Sim(config({ rapidCommit: true })).start();
    expect(sim.sent).toHaveLength(1);
    const m = sim.last().message;
    expect(m.type).toBe(MessageType.SOLICIT);
    expect(findOption(m.options, "client-id")?.duid).toEqual(CLIENT_DUID);
    expect(findOption(m.options, "elapsed-time")?.centiseconds).toBe(0);
    expect(findOption(m.options, "server-id")).toBeUndefined();
    expect(findOption(m.options, "rapid-commit")).toBeDefined();
    const oro = findOption(m.options, "oro")?.codes ?? [];
    for (const c of [OptionCode.DNS_SERVERS, OptionCode.DOMAIN_LIST, OptionCode.SNTP_SERVERS, OptionCode.AFTR_NAME, OptionCode.SOL_MAX_RT]) {
      expect(oro).toContain(c);
    }
    expect(prefixesIn(m)).toEqual(["::/56"]);
  });

  it("retransmits with RT doubling ±10%, first RT strictly above IRT, capped at SOL_MAX_RT ±10%", () => {
    const sim = new Sim(config(), 42).start();
    sim.advance(6 * 3600 * 1000);
    const sol = sim.sentOf("solicit");
    expect(sol.length).toBeGreaterThan(12);
    const gaps = sol.slice(1).map((s, i) => s.at - sol[i]!.at);
    expect(gaps[0]).toBeGreaterThan(1000);
    expect(gaps[0]).toBeLessThanOrEqual(1100);
    for (let i = 1; i < gaps.length; i++) {
      const prev = gaps[i - 1]!;
      const g = gaps[i]!;
      const doubled = g >= 1.9 * prev - 1 && g <= 2.1 * prev + 1;
      const capped = g >= 3240_000 - 1 && g <= 3960_000 + 1;
      expect(doubled || capped).toBe(true);
    }
    expect(Math.max(...gaps)).toBeLessThanOrEqual(3960_000 + 1);
    // Same transaction for every retransmission; elapsed time grows and saturates at 0xffff.
    expect(new Set(sol.map((s) => s.message.xid)).size).toBe(1);
    const elapsed = sol.map((s) => findOption(s.message.options, "elapsed-time")!.centiseconds);
    expect(elapsed[1]).toBe(Math.floor((sol[1]!.at - sol[0]!.at) / 10));
    expect(elapsed.at(-1)).toBe(0xffff);
  });

  it("delays the first Solicit by a random 0..solicitMaxDelayMs when configured", () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => {
      const sim = new Sim(config({ solicitMaxDelayMs: 1000 }), seed).start();
      expect(sim.sent).toHaveLength(0);
      sim.fireNext();
      expect(sim.sent).toHaveLength(1);
      expect(findOption(sim.last().message.options, "elapsed-time")?.centiseconds).toBe(0);
      return sim.sent[0]!.at - T0;
    });
    for (const d of delays) expect(d >= 0 && d < 1000).toBe(true);
    expect(new Set(delays).size).toBeGreaterThan(4);
  });

  it("collects Advertises during the first RT and requests from the highest preference", () => {
    const sim = new Sim(config()).start();
    const sol = sim.last();
    sim.deliver(advertise(sol, { serverId: SERVER_A, preference: 10, ias: [iaPd([{ prefix: "2001:db8:a::" }])] }));
    sim.deliver(advertise(sol, { serverId: SERVER_B, preference: 50, ias: [iaPd([{ prefix: "2001:db8:b::" }])] }));
    expect(sim.sentOf("request")).toHaveLength(0);
    sim.fireNext();
    const req = sim.last();
    expect(req.message.type).toBe(MessageType.REQUEST);
    expect(findOption(req.message.options, "server-id")?.duid).toEqual(SERVER_B);
    expect(prefixesIn(req.message)).toEqual(["2001:db8:b::/56"]);
    expect(req.message.xid).not.toBe(sol.message.xid);
  });

  it("takes an Advertise with preference 255 at once", () => {
    const sim = new Sim(config()).start();
    sim.deliver(advertise(sim.last(), { preference: 255, ias: [iaPd([{ prefix: "2001:db8:a::" }])] }));
    expect(sim.last().message.type).toBe(MessageType.REQUEST);
    expect(sim.now).toBe(sim.sent[0]!.at);
  });

  it("after the first RT, takes the first Advertise at once", () => {
    const sim = new Sim(config()).start();
    sim.fireNext();
    expect(sim.sentOf("solicit")).toHaveLength(2);
    sim.deliver(advertise(sim.last(), { preference: 0, ias: [iaPd([{ prefix: "2001:db8:a::" }])] }));
    expect(sim.last().message.type).toBe(MessageType.REQUEST);
  });

  it("ignores an Advertise without leases (NoPrefixAvail) but applies its SOL_MAX_RT", () => {
    const sim = new Sim(config(), 3).start();
    sim.deliver(
      advertise(sim.last(), {
        ias: [iaPd([], { status: StatusCode.NoPrefixAvail })],
        extra: [{ kind: "sol-max-rt", seconds: 100 }],
      }),
    );
    sim.advance(3600_000);
    expect(sim.sentOf("request")).toHaveLength(0);
    const sol = sim.sentOf("solicit");
    const gaps = sol.slice(1).map((s, i) => s.at - sol[i]!.at);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(110_000 + 1);
    expect(gaps.at(-1)).toBeGreaterThanOrEqual(90_000 - 1);
  });

  it("accepts a rapid-commit Reply to Solicit and never sends Request", () => {
    const sim = new Sim(config({ rapidCommit: true })).start();
    sim.deliver(answer(sim.last(), { ias: [iaPd([{ prefix: "2001:db8:1000::" }])], extra: [{ kind: "rapid-commit" }] }));
    expect(sim.state.phase).toBe("bound");
    expect(sim.eventTypes()).toEqual(["acquired"]);
    expect(sim.sentOf("request")).toHaveLength(0);
  });

  it("ignores a Reply to Solicit without the Rapid Commit option", () => {
    const sim = new Sim(config({ rapidCommit: true })).start();
    sim.deliver(answer(sim.last(), { ias: [iaPd([{ prefix: "2001:db8:1000::" }])] }));
    expect(sim.state.phase).toBe("solicit");
    expect(sim.events).toHaveLength(0);
  });

  it("uses the last delegated prefix as hint, an explicit hint over it, and neither when the length changed", () => {
    const last = { prefix: "2001:db8:42::", length: 56 };
    expect(prefixesIn(new Sim(config(), 1, { lastPrefix: last }).start().last().message)).toEqual(["2001:db8:42::/56"]);
    const explicit = config({ pd: { iaid: 1, prefixLength: 56, hint: { prefix: "2001:db8:77::", length: 56 } } });
    expect(prefixesIn(new Sim(explicit, 1, { lastPrefix: last }).start().last().message)).toEqual(["2001:db8:77::/56"]);
    const longer = config({ pd: { iaid: 1, prefixLength: 60 } });
    expect(prefixesIn(new Sim(longer, 1, { lastPrefix: last }).start().last().message)).toEqual(["::/60"]);
  });

  it("asks for IA_NA too when configured, and for nothing stateful in information-only mode", () => {
    const both = new Sim(config({ na: { iaid: 1 } })).start().last().message;
    expect(findOptions(both.options, "ia-na")).toHaveLength(1);
    expect(findOptions(both.options, "ia-pd")).toHaveLength(1);
    const info = new Sim(config({ mode: "information-only" })).start().last().message;
    expect(info.type).toBe(MessageType.INFORMATION_REQUEST);
    expect(findOptions(info.options, "ia-pd")).toHaveLength(0);
    const oro = findOption(info.options, "oro")?.codes ?? [];
    expect(oro).toContain(OptionCode.INFORMATION_REFRESH_TIME);
    expect(oro).toContain(OptionCode.INF_MAX_RT);
  });
});

describe("Request", () => {
  function requesting(seed = 5): Sim {
    const sim = new Sim(config(), seed).start();
    sim.deliver(advertise(sim.last(), { preference: 255, ias: [iaPd([{ prefix: "2001:db8:1000::" }])] }));
    return sim;
  }

  it("gives up after REQ_MAX_RC transmissions when every Reply is lost and goes back to Solicit", () => {
    const sim = requesting();
    const requestXid = sim.last().message.xid;
    sim.advance(10 * 60_000);
    const req = sim.sentOf("request");
    expect(req).toHaveLength(10);
    expect(new Set(req.map((r) => r.message.xid))).toEqual(new Set([requestXid]));
    const gaps = req.slice(1).map((s, i) => s.at - req[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(900 - 1);
    expect(gaps[0]).toBeLessThanOrEqual(1100 + 1);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(33_000 + 1);
    const after = sim.sent.filter((s) => s.at > req.at(-1)!.at);
    expect(after[0]?.exchange).toBe("solicit");
    expect(after[0]!.message.xid).not.toBe(requestXid);
    expect(sim.state.phase).toBe("solicit");
  });

  it("keeps retransmitting on UnspecFail and UseMulticast, then binds on success", () => {
    const sim = requesting();
    const req = sim.last();
    sim.deliver(answer(req, { extra: [status(StatusCode.UnspecFail)] }));
    sim.deliver(answer(req, { extra: [status(StatusCode.UseMulticast)] }));
    expect(sim.state.phase).toBe("request");
    sim.fireNext();
    expect(sim.sentOf("request")).toHaveLength(2);
    sim.deliver(answer(sim.last(), { ias: [iaPd([{ prefix: "2001:db8:1000::" }])] }));
    expect(sim.state.phase).toBe("bound");
    expect(sim.eventTypes()).toEqual(["acquired"]);
  });

  it("goes back to Solicit (after a backoff delay) on NoPrefixAvail", () => {
    const sim = requesting();
    sim.deliver(answer(sim.last(), { ias: [iaPd([], { status: StatusCode.NoPrefixAvail })] }));
    expect(sim.state.phase).toBe("solicit");
    expect(sim.sent.at(-1)!.exchange).toBe("request");
    sim.fireNext();
    expect(sim.last().exchange).toBe("solicit");
    expect(sim.state.failures).toBe(1);
  });

  it("drops the specific hint after NotOnLink", () => {
    const sim = new Sim(config(), 1, { lastPrefix: { prefix: "2001:db8:42::", length: 56 } }).start();
    sim.deliver(advertise(sim.last(), { preference: 255, ias: [iaPd([{ prefix: "2001:db8:42::" }])] }));
    sim.deliver(answer(sim.last(), { extra: [status(StatusCode.NotOnLink)] }));
    sim.fireNext();
    expect(prefixesIn(sim.last().message)).toEqual(["::/56"]);
  });

  it("ignores replies for another transaction, another client DUID, or without server id", () => {
    const sim = requesting();
    const req = sim.last();
    const ias = [iaPd([{ prefix: "2001:db8:1000::" }])];
    sim.deliver(answer(req, { ias, xid: (req.message.xid + 1) & 0xffffff }));
    sim.deliver(answer(req, { ias, clientId: Uint8Array.from([0, 3, 0, 1, 9, 9, 9, 9, 9, 9]) }));
    sim.deliver(answer(req, { ias, clientId: null }));
    sim.deliver(answer(req, { ias, serverId: SERVER_B }));
    sim.deliver({ type: MessageType.REPLY, xid: req.message.xid, options: [{ kind: "client-id", duid: CLIENT_DUID }, ...ias] });
    sim.deliver(advertise(req, { ias }));
    expect(sim.state.phase).toBe("request");
    expect(sim.events).toHaveLength(0);
    const reasons = sim.logs.filter((l) => l.msg === "ignored message").map((l) => l.fields.reason);
    expect(reasons).toEqual([
      "transaction id mismatch",
      "client identifier is not ours",
      "no client identifier",
      "server identifier is not the one we asked",
      "no server identifier",
      "Advertise outside Solicit",
    ]);
  });

  it("drops IAs with T1 > T2 and prefixes with preferred > valid", () => {
    const sim = requesting();
    const bad = iaPd([{ prefix: "2001:db8:1000::", preferred: 900, valid: 600 }]);
    sim.deliver(answer(sim.last(), { ias: [bad] }));
    expect(sim.state.phase).toBe("solicit");
    const sim2 = requesting();
    sim2.deliver(answer(sim2.last(), { ias: [iaPd([{ prefix: "2001:db8:1000::" }], { t1: 300, t2: 200 })] }));
    expect(sim2.state.phase).toBe("solicit");
    expect(sim2.events).toHaveLength(0);
  });

  it("computes T1/T2 as 0.5/0.8 of the shortest preferred lifetime when the server sends 0", () => {
    const sim = requesting();
    sim.deliver(answer(sim.last(), { ias: [iaPd([{ prefix: "2001:db8:1000::", preferred: 1000, valid: 2000 }], { t1: 0, t2: 0 })] }));
    expect(sim.state.lease?.t1).toBe(500);
    expect(sim.state.lease?.t2).toBe(800);
    expect(sim.timers.get("renew")).toBe(sim.now + 500_000);
    expect(sim.timers.get("rebind")).toBe(sim.now + 800_000);
  });
});
