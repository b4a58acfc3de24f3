import { describe, expect, it } from "vitest";
import { FLAG_BROADCAST, decodeMessage, encodeMessage, type DhcpMessage } from "./codec.js";
import { initialState, step } from "./client-fsm.js";
import { DEFAULT_TIMING, type Action, type ClientState, type FsmConfig, type FsmEvent, type LeaseEvent } from "./fsm-types.js";
import type { DhcpLease } from "./lease.js";
import { MessageType, Opt, readAddress, readU8 } from "./options.js";
import { seededRng } from "./seeded-rng.js";
import { MAC, SERVER, reply } from "./test-support/replies.js";

function config(over: Partial<FsmConfig> = {}): FsmConfig {
  return {
    mac: MAC,
    clientId: Uint8Array.of(1, ...MAC),
    parameterRequestList: [1, 3, 6, 121],
    maxMessageSize: 1472,
    ...DEFAULT_TIMING,
    arpCheck: false,
    rng: seededRng(7),
    ...over,
  };
}

interface Sent {
  what: string;
  to: string;
  msg: DhcpMessage;
}

/** Drives the machine and keeps what it did, the way the engine would. */
class Harness {
  state: ClientState;
  sent: Sent[] = [];
  events: LeaseEvent[] = [];
  persisted: Array<DhcpLease | null> = [];
  probes: string[] = [];
  ignored: string[] = [];

  constructor(
    readonly cfg: FsmConfig = config(),
    state: ClientState = initialState(),
  ) {
    this.state = state;
  }

  on(event: FsmEvent): Action[] {
    const t = step(this.state, event, this.cfg);
    this.state = t.state;
    for (const a of t.actions) {
      if (a.type === "send") {
        const d = decodeMessage(encodeMessage(a.message));
        if (!d.ok) throw new Error(d.error);
        this.sent.push({ what: a.what, to: a.to, msg: d.message });
      } else if (a.type === "emit") this.events.push(a.event);
      else if (a.type === "persist") this.persisted.push(a.lease);
      else if (a.type === "probe") this.probes.push(a.address);
      else this.ignored.push(a.reason);
    }
    return t.actions;
  }

  fire(timer: "retransmit" | "renew" | "rebind" | "expire" | "restart"): number {
    const at = this.state.deadlines[timer];
    if (at === undefined) throw new Error(`no ${timer} deadline in ${this.state.phase}`);
    this.on({ type: "timer", now: at, timer });
    return at;
  }

  last(): Sent {
    const s = this.sent.at(-1);
    if (!s) throw new Error("nothing sent");
    return s;
  }

  /** OFFER then ACK for the current exchange; returns the bound lease. */
  bind(now = 0, ack: Partial<Parameters<typeof reply>[0]> = {}): DhcpLease {
    if (this.state.phase === "idle") this.on({ type: "start", now });
    this.on({ type: "packet", now: now + 5, message: reply({ type: MessageType.Offer, xid: this.state.xid, yiaddr: "192.0.2.10" }) });
    this.on({ type: "packet", now: now + 10, message: ackFor(this.state.xid, ack) });
    if (!this.state.lease) throw new Error(`not bound: ${this.state.phase}`);
    return this.state.lease;
  }
}

function ackFor(xid: number, over: Partial<Parameters<typeof reply>[0]> = {}): DhcpMessage {
  return reply({ type: MessageType.Ack, xid, yiaddr: "192.0.2.10", leaseTime: 120, t1: 60, t2: 105, mask: "255.255.255.0", routers: ["192.0.2.1"], dns: ["192.0.2.53"], ...over });
}

const typeOf = (m: DhcpMessage): number | undefined => readU8(m.options, Opt.MessageType);

describe("acquisition (INIT → SELECTING → REQUESTING → BOUND)", () => {
  it("broadcasts a DISCOVER with the broadcast flag and backs off 4, 8, 16, 32, 64, 64 s ± 1 s with one xid", () => {
    const h = new Harness();
    h.on({ type: "start", now: 0 });
    expect(h.state.phase).toBe("selecting");
    const first = h.last();
    expect(first).toMatchObject({ what: "DISCOVER", to: "255.255.255.255" });
    expect(first.msg.flags & FLAG_BROADCAST).toBe(FLAG_BROADCAST);
    expect(first.msg.ciaddr).toBe("0.0.0.0");
    const waits: number[] = [];
    let sentAt = 0;
    for (let i = 0; i < 6; i++) {
      const at = h.fire("retransmit");
      waits.push(at - sentAt);
      sentAt = at;
      expect(h.last().msg.xid).toBe(first.msg.xid);
      expect(h.last().msg.secs).toBe(Math.floor(at / 1000));
    }
    [4000, 8000, 16000, 32000, 64000, 64000].forEach((nominal, i) => {
      expect(Math.abs((waits[i] as number) - nominal)).toBeLessThanOrEqual(1000);
    });
  });

  it("answers the first OFFER with a broadcast REQUEST naming the server, then binds on ACK", () => {
    const h = new Harness(config({ hostname: "cpe", vendorClass: "routerd" }));
    h.on({ type: "start", now: 1000 });
    const xid = h.state.xid;
    h.on({ type: "packet", now: 1010, message: reply({ type: MessageType.Offer, xid, yiaddr: "192.0.2.10" }) });
    const req = h.last();
    expect(req.what).toBe("REQUEST(selecting)");
    expect(req.msg.xid).toBe(xid);
    expect(typeOf(req.msg)).toBe(MessageType.Request);
    expect(readAddress(req.msg.options, Opt.RequestedAddress)).toBe("192.0.2.10");
    expect(readAddress(req.msg.options, Opt.ServerId)).toBe(SERVER);
    expect(req.msg.flags & FLAG_BROADCAST).toBe(FLAG_BROADCAST);
    expect(Buffer.from(req.msg.options.get(Opt.HostName) ?? []).toString()).toBe("cpe");

    h.on({ type: "packet", now: 1020, message: ackFor(xid) });
    expect(h.state.phase).toBe("bound");
    const lease = h.events[0]?.lease as DhcpLease;
    expect(h.events.map((e) => e.type)).toEqual(["bound"]);
    expect(lease).toMatchObject({ address: "192.0.2.10", prefixLength: 24, serverId: SERVER, dnsServers: ["192.0.2.53"], leaseTime: 120 });
    expect(lease.routes).toEqual([{ destination: "0.0.0.0", prefixLength: 0, gateway: "192.0.2.1" }]);
    // Timers count from when the REQUEST was sent (RFC 2131 §4.4.1).
    expect(h.state.deadlines).toEqual({ renew: 1010 + 60_000, rebind: 1010 + 105_000, expire: 1010 + 120_000 });
    expect(h.persisted).toEqual([lease]);
  });

  it("ignores replies for another xid or hardware address and from servers it did not select", () => {
    const h = new Harness();
    h.on({ type: "start", now: 0 });
    const xid = h.state.xid;
    h.on({ type: "packet", now: 1, message: reply({ type: MessageType.Offer, xid: xid ^ 1, yiaddr: "192.0.2.10" }) });
    h.on({ type: "packet", now: 1, message: reply({ type: MessageType.Offer, xid, mac: Uint8Array.of(2, 0, 0, 0, 0, 9), yiaddr: "192.0.2.10" }) });
    h.on({ type: "packet", now: 1, message: reply({ type: MessageType.Offer, xid, yiaddr: "192.0.2.10", serverId: null }) });
    h.on({ type: "packet", now: 1, message: reply({ type: MessageType.Ack, xid, yiaddr: "192.0.2.10" }) });
    expect(h.state.phase).toBe("selecting");
    expect(h.ignored).toEqual(["xid mismatch", "chaddr mismatch", "OFFER without a server identifier", "unexpected ACK in selecting"]);
    h.on({ type: "packet", now: 2, message: reply({ type: MessageType.Offer, xid, yiaddr: "192.0.2.10" }) });
    h.on({ type: "packet", now: 3, message: ackFor(xid, { serverId: "192.0.2.99" }) });
    expect(h.state.phase).toBe("requesting");
    expect(h.ignored.at(-1)).toBe("ACK from a server we did not select");
  });

  it("restarts discovery with a new xid on NAK, and backs off on repeated NAKs", () => {
    const h = new Harness();
    h.on({ type: "start", now: 0 });
    const xid = h.state.xid;
    h.on({ type: "packet", now: 1, message: reply({ type: MessageType.Offer, xid, yiaddr: "192.0.2.10" }) });
    h.on({ type: "packet", now: 2, message: reply({ type: MessageType.Nak, xid, message: "address not available" }) });
    expect(h.events).toEqual([{ type: "nak", serverId: SERVER, reason: "address not available" }]);
    expect(h.state.phase).toBe("selecting");
    expect(h.last().what).toBe("DISCOVER");
    expect(h.last().msg.xid).not.toBe(xid);
    expect(h.last().msg.options.has(Opt.RequestedAddress)).toBe(false);

    const xid2 = h.state.xid;
    h.on({ type: "packet", now: 3, message: reply({ type: MessageType.Offer, xid: xid2, yiaddr: "192.0.2.10" }) });
    const sends = h.sent.length;
    h.on({ type: "packet", now: 4, message: reply({ type: MessageType.Nak, xid: xid2 }) });
    expect(h.state.phase).toBe("init");
    expect(h.sent.length).toBe(sends);
    const restartAt = h.fire("restart");
    expect(restartAt).toBeGreaterThanOrEqual(4 + 3000);
    expect(h.last().what).toBe("DISCOVER");
  });

  it("gives up REQUESTING after the configured attempts and discovers again", () => {
    const h = new Harness(config({ requestAttempts: 3 }));
    h.on({ type: "start", now: 0 });
    h.on({ type: "packet", now: 1, message: reply({ type: MessageType.Offer, xid: h.state.xid, yiaddr: "192.0.2.10" }) });
    h.fire("retransmit");
    h.fire("retransmit");
    expect(h.sent.map((s) => s.what)).toEqual(["DISCOVER", "REQUEST(selecting)", "REQUEST(selecting)", "REQUEST(selecting)"]);
    h.fire("retransmit");
    expect(h.last().what).toBe("DISCOVER");
    expect(h.state.phase).toBe("selecting");
  });
});

describe("lease upkeep (BOUND → RENEWING → REBINDING → expiry)", () => {
  it("renews by unicast to the server at T1 with ciaddr and without 50/54", () => {
    const h = new Harness(config({ renewRetransmitMinMs: 5000 }));
    h.bind();
    const t1 = h.fire("renew");
    expect(h.state.phase).toBe("renewing");
    const req = h.last();
    expect(req).toMatchObject({ what: "REQUEST(renewing)", to: SERVER });
    expect(req.msg.ciaddr).toBe("192.0.2.10");
    expect(req.msg.flags & FLAG_BROADCAST).toBe(0);
    expect(req.msg.options.has(Opt.RequestedAddress)).toBe(false);
    expect(req.msg.options.has(Opt.ServerId)).toBe(false);
    // Half the time left until T2 (45 s / 2), at least the minimum.
    expect(h.state.deadlines.retransmit).toBe(t1 + 22_500);
    h.on({ type: "packet", now: t1 + 20, message: ackFor(h.state.xid, { leaseTime: 300, t1: 150, t2: 260 }) });
    expect(h.events.map((e) => e.type)).toEqual(["bound", "renewed"]);
    expect(h.state.deadlines).toEqual({ renew: t1 + 150_000, rebind: t1 + 260_000, expire: t1 + 300_000 });
  });

  it("rebinds by broadcast at T2, accepts any server, then reports renewed", () => {
    const h = new Harness();
    h.bind();
    h.fire("renew");
    const t2 = h.fire("rebind");
    expect(h.state.phase).toBe("rebinding");
    expect(h.events.map((e) => e.type)).toEqual(["bound", "rebinding"]);
    expect(h.last()).toMatchObject({ what: "REQUEST(rebinding)", to: "255.255.255.255" });
    expect(h.last().msg.ciaddr).toBe("192.0.2.10");
    // RFC minimum of 60 s wins over half the remaining 15 s.
    expect(h.state.deadlines.retransmit).toBe(t2 + 60_000);
    h.on({ type: "packet", now: t2 + 5, message: ackFor(h.state.xid, { serverId: "192.0.2.2" }) });
    expect(h.events.at(-1)).toMatchObject({ type: "renewed", lease: { serverId: "192.0.2.2" } });
  });

  it("expires: reports expired and lost, forgets the lease and discovers asking for the old address", () => {
    const h = new Harness();
    h.bind();
    h.fire("renew");
    h.fire("rebind");
    h.fire("expire");
    expect(h.events.map((e) => e.type)).toEqual(["bound", "rebinding", "expired", "lost"]);
    expect(h.events.at(-1)).toMatchObject({ reason: "expired", lease: { address: "192.0.2.10" } });
    expect(h.persisted.at(-1)).toBeNull();
    expect(h.state.phase).toBe("selecting");
    expect(readAddress(h.last().msg.options, Opt.RequestedAddress)).toBe("192.0.2.10");
  });

  it("loses the lease on NAK while renewing and starts over", () => {
    const h = new Harness();
    h.bind();
    h.fire("renew");
    h.on({ type: "packet", now: 70_000, message: reply({ type: MessageType.Nak, xid: h.state.xid }) });
    expect(h.events.map((e) => e.type)).toEqual(["bound", "nak", "lost"]);
    expect(h.state.phase).toBe("selecting");
    expect(h.last().what).toBe("DISCOVER");
  });

  it("treats an ACK for another address as loss of the old lease and a new binding", () => {
    const h = new Harness();
    h.bind();
    h.fire("renew");
    h.on({ type: "packet", now: 70_000, message: ackFor(h.state.xid, { yiaddr: "192.0.2.77" }) });
    expect(h.events.map((e) => [e.type, e.lease?.address])).toEqual([
      ["bound", "192.0.2.10"],
      ["lost", "192.0.2.10"],
      ["bound", "192.0.2.77"],
    ]);
  });

  it("keeps no timers for an infinite lease", () => {
    const h = new Harness();
    h.bind(0, { leaseTime: 0xffffffff, t1: undefined, t2: undefined });
    expect(h.state.deadlines).toEqual({});
  });

  it("ignores a timer that is no longer due", () => {
    const h = new Harness();
    h.bind();
    h.on({ type: "timer", now: 1000, timer: "renew" });
    expect(h.state.phase).toBe("bound");
    expect(h.ignored).toContain("stale renew timer");
  });

  it("renews on demand", () => {
    const h = new Harness();
    h.bind();
    h.on({ type: "renew", now: 2000 });
    expect(h.last()).toMatchObject({ what: "REQUEST(renewing)", to: SERVER });
  });
});

describe("restart with a stored lease (INIT-REBOOT)", () => {
  function stored(): DhcpLease {
    return new Harness().bind(0);
  }

  it("asks for the stored address by broadcast without a server id and binds on ACK", () => {
    const h = new Harness();
    h.on({ type: "start", now: 30_000, storedLease: stored() });
    expect(h.state.phase).toBe("rebooting");
    const req = h.last();
    expect(req.what).toBe("REQUEST(init-reboot)");
    expect(req.msg.ciaddr).toBe("0.0.0.0");
    expect(readAddress(req.msg.options, Opt.RequestedAddress)).toBe("192.0.2.10");
    expect(req.msg.options.has(Opt.ServerId)).toBe(false);
    expect(req.msg.flags & FLAG_BROADCAST).toBe(FLAG_BROADCAST);
    h.on({ type: "packet", now: 30_010, message: ackFor(h.state.xid) });
    expect(h.events.map((e) => e.type)).toEqual(["bound"]);
    expect(h.state.lease?.acquiredAt).toBe(30_000);
  });

  it("on NAK reports the stored address lost and discovers", () => {
    const h = new Harness();
    h.on({ type: "start", now: 30_000, storedLease: stored() });
    h.on({ type: "packet", now: 30_010, message: reply({ type: MessageType.Nak, xid: h.state.xid }) });
    expect(h.events.map((e) => e.type)).toEqual(["nak", "lost"]);
    expect(h.persisted).toEqual([null]);
    expect(h.last().what).toBe("DISCOVER");
  });

  it("keeps using an unexpired lease when nobody answers, with its original timers", () => {
    const h = new Harness(config({ rebootAttempts: 2 }));
    const lease = stored();
    h.on({ type: "start", now: 30_000, storedLease: lease });
    h.fire("retransmit");
    h.fire("retransmit");
    expect(h.state.phase).toBe("bound");
    expect(h.events).toEqual([{ type: "bound", lease, resumed: true }]);
    expect(h.state.deadlines.expire).toBe(lease.expiresAt);
  });

  it("drops an expired stored lease and discovers asking for its address", () => {
    const h = new Harness();
    const lease = stored();
    h.on({ type: "start", now: (lease.expiresAt as number) + 1, storedLease: lease });
    expect(h.state.phase).toBe("selecting");
    expect(h.persisted).toEqual([null]);
    expect(readAddress(h.last().msg.options, Opt.RequestedAddress)).toBe("192.0.2.10");
  });
});

describe("address probe and DECLINE", () => {
  function acked(): Harness {
    const h = new Harness(config({ arpCheck: true }));
    h.on({ type: "start", now: 0 });
    h.on({ type: "packet", now: 1, message: reply({ type: MessageType.Offer, xid: h.state.xid, yiaddr: "192.0.2.10" }) });
    h.on({ type: "packet", now: 2, message: ackFor(h.state.xid) });
    return h;
  }

  it("probes before binding and binds when nobody answers", () => {
    const h = acked();
    expect(h.state.phase).toBe("checking");
    expect(h.probes).toEqual(["192.0.2.10"]);
    expect(h.events).toEqual([]);
    h.on({ type: "probe-result", now: 2000, address: "192.0.2.10", inUse: false });
    expect(h.events.map((e) => e.type)).toEqual(["bound"]);
  });

  it("declines an address in use, waits, and discovers without asking for it again", () => {
    const h = acked();
    h.on({ type: "probe-result", now: 2000, address: "192.0.2.10", inUse: true });
    const decline = h.last();
    expect(decline.what).toBe("DECLINE");
    expect(typeOf(decline.msg)).toBe(MessageType.Decline);
    expect(readAddress(decline.msg.options, Opt.RequestedAddress)).toBe("192.0.2.10");
    expect(readAddress(decline.msg.options, Opt.ServerId)).toBe(SERVER);
    expect(decline.msg.ciaddr).toBe("0.0.0.0");
    expect(h.events).toEqual([{ type: "declined", address: "192.0.2.10", serverId: SERVER, reason: "address in use" }]);
    expect(h.state.deadlines).toEqual({ restart: 12_000 });
    h.fire("restart");
    expect(h.last().what).toBe("DISCOVER");
    expect(h.last().msg.options.has(Opt.RequestedAddress)).toBe(false);
  });
});

describe("release and stop", () => {
  it("sends RELEASE by unicast with ciaddr and server id, reports released and forgets the lease", () => {
    const h = new Harness();
    h.bind();
    h.on({ type: "stop", now: 5000, release: true });
    const rel = h.last();
    expect(rel).toMatchObject({ what: "RELEASE", to: SERVER });
    expect(rel.msg.ciaddr).toBe("192.0.2.10");
    expect(readAddress(rel.msg.options, Opt.ServerId)).toBe(SERVER);
    expect(rel.msg.options.has(Opt.RequestedAddress)).toBe(false);
    expect(h.events.map((e) => e.type)).toEqual(["bound", "released"]);
    expect(h.persisted.at(-1)).toBeNull();
    expect(h.state).toMatchObject({ phase: "stopped", deadlines: {} });
  });

  it("keeps the stored lease when stopping without release", () => {
    const h = new Harness();
    h.bind();
    const sends = h.sent.length;
    h.on({ type: "stop", now: 5000, release: false });
    expect(h.sent.length).toBe(sends);
    expect(h.persisted.length).toBe(1);
    expect(h.state.phase).toBe("stopped");
  });

  it("release() then renew() acquires again", () => {
    const h = new Harness();
    h.bind();
    h.on({ type: "release", now: 5000 });
    expect(h.state.phase).toBe("idle");
    h.on({ type: "renew", now: 6000 });
    expect(h.last().what).toBe("DISCOVER");
    expect(readAddress(h.last().msg.options, Opt.RequestedAddress)).toBe("192.0.2.10");
  });
});
