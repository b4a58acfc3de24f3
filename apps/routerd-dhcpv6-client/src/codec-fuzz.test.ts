// Seeded fuzzing: the codec must answer every input with a result (never throw), and whatever it
// accepts must survive encode → decode unchanged. The state machine must swallow any decodable packet.
import { describe, expect, it } from "vitest";
import { step } from "./client-fsm.js";
import { decodeMessage, encodeMessage, type Dhcp6Message } from "./codec.js";
import { MessageType } from "./constants.js";
import type { FsmState } from "./fsm-types.js";
import { seededRandom, randomInt, type RandomSource } from "./random.js";
import { CLIENT_DUID, Sim, advertise, answer, boundSim, config, iaPd } from "./testing/fsm-sim.js";

function randomBytes(rng: RandomSource, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => randomInt(rng, 256));
}

function checkDecode(buf: Uint8Array): boolean {
  const r = decodeMessage(buf);
  if (!r.ok) return false;
  const again = decodeMessage(encodeMessage(r.message));
  expect(again).toEqual(r);
  return true;
}

/** Valid server messages of every shape the client handles, as seeds for mutation. */
function seeds(): Uint8Array[] {
  const sim = new Sim(config({ na: { iaid: 1 }, rapidCommit: true })).start();
  const sol = sim.last();
  const msgs: Dhcp6Message[] = [
    advertise(sol, { preference: 10, ias: [iaPd([{ prefix: "2001:db8:1::" }, { prefix: "2001:db8:2::", length: 60 }])] }),
    answer(sol, {
      ias: [iaPd([{ prefix: "2001:db8:1::" }], { status: 0 })],
      extra: [
        { kind: "rapid-commit" },
        { kind: "dns-servers", addresses: ["2001:db8::53"] },
        { kind: "domain-list", names: ["example.net", "a.b.c"] },
        { kind: "aftr-name", name: "aftr.example.net" },
        { kind: "ia-na", iaid: 1, t1: 1, t2: 2, options: [{ kind: "ia-addr", address: "2001:db8::9", preferred: 5, valid: 9, options: [] }] },
      ],
    }),
    sol.message,
  ];
  return msgs.map(encodeMessage);
}

describe("codec fuzzing", () => {
  it("never throws on 5000 random buffers", () => {
    const rng = seededRandom(0xdecaf);
    let accepted = 0;
    for (let i = 0; i < 5000; i++) {
      const buf = randomBytes(rng, randomInt(rng, 300));
      // Half of them get a plausible header so option parsing is reached.
      if (i % 2 === 0 && buf.length > 0) buf[0] = MessageType.REPLY;
      if (checkDecode(buf)) accepted++;
    }
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThan(5000);
  });

  it("never throws on every truncation of valid messages", () => {
    let rejected = 0;
    for (const seed of seeds()) {
      expect(checkDecode(seed)).toBe(true);
      for (let n = 0; n < seed.length; n++) if (!checkDecode(seed.subarray(0, n))) rejected++;
    }
    expect(rejected).toBeGreaterThan(50);
  });

  it("never throws on 6000 mutations: flipped bytes, bad option lengths, spliced garbage", () => {
    const rng = seededRandom(4242);
    const base = seeds();
    let rejected = 0;
    for (let i = 0; i < 6000; i++) {
      const buf = Uint8Array.from(base[i % base.length]!);
      const mode = i % 3;
      if (mode === 0) {
        for (let k = 0; k < 1 + randomInt(rng, 4); k++) buf[4 + randomInt(rng, buf.length - 4)] = randomInt(rng, 256);
      } else if (mode === 1) {
        // Overwrite a 16-bit field after the header: often an option length, sometimes nested.
        const at = 4 + randomInt(rng, buf.length - 6);
        const v = randomInt(rng, 0x10000);
        buf[at] = v >> 8;
        buf[at + 1] = v & 0xff;
      } else {
        const at = 4 + randomInt(rng, buf.length - 4);
        const spliced = new Uint8Array(buf.length + 8);
        spliced.set(buf.subarray(0, at));
        spliced.set(randomBytes(rng, 8), at);
        spliced.set(buf.subarray(at), at + 8);
        if (!checkDecode(spliced)) rejected++;
        continue;
      }
      if (!checkDecode(buf)) rejected++;
    }
    expect(rejected).toBeGreaterThan(500);
  });

  it("bounds nesting: a tower of IA_PD options is an error, not a stack overflow", () => {
    let inner = new Uint8Array();
    for (let depth = 0; depth < 2000; depth++) {
      const len = 12 + inner.length;
      if (len > 0xffff) break;
      const opt = new Uint8Array(4 + len);
      opt.set([0, 25, len >> 8, len & 0xff]);
      opt.set(inner, 16);
      inner = opt;
    }
    const msg = new Uint8Array(4 + inner.length);
    msg.set([MessageType.REPLY, 0, 0, 1]);
    msg.set(inner, 4);
    const r = decodeMessage(msg);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/nested too deeply/);
  });
});

describe("state machine fuzzing", () => {
  it("handles 3000 mutated packets in every phase without throwing", () => {
    const rng = seededRandom(77);
    const phases: Array<() => Sim> = [
      () => new Sim(config({ rapidCommit: true, na: { iaid: 1 } })).start(),
      () => {
        const s = new Sim(config()).start();
        s.deliver(advertise(s.last(), { preference: 255, ias: [iaPd([{ prefix: "2001:db8:1::" }])] }));
        return s;
      },
      () => {
        const s = boundSim();
        s.advance(100_000);
        return s;
      },
      () => new Sim(config({ mode: "information-only" })).start(),
    ];
    let handled = 0;
    for (let i = 0; i < 3000; i++) {
      const sim = phases[i % phases.length]!();
      const to = sim.last();
      const good = encodeMessage(
        answer(to, { type: i % 5 === 0 ? MessageType.ADVERTISE : MessageType.REPLY, ias: [iaPd([{ prefix: "2001:db8:9::" }])] }),
      );
      for (let k = 0; k < 1 + randomInt(rng, 3); k++) good[4 + randomInt(rng, good.length - 4)] = randomInt(rng, 256);
      const decoded = decodeMessage(good);
      if (!decoded.ok) continue;
      const before: FsmState = sim.state;
      const r = step(before, { type: "packet", now: sim.now, message: decoded.message, from: "fe80::1%x" }, { config: { ...sim.cfg, clientDuid: CLIENT_DUID }, rng });
      expect(r.state.phase).toBeDefined();
      handled++;
    }
    expect(handled).toBeGreaterThan(1000);
  });
});
