// Seeded fuzzing of the codec: every input gets a result or a WireError (never another exception, never a
// hang), and whatever decodes survives encode → decode unchanged.
import { describe, expect, it } from "vitest";
import { below, mutate, randomBytes, seeded } from "../test-support/random.js";
import { CLASS, EDNS_DO, FLAG, TYPE } from "./constants.js";
import { WireError } from "./errors.js";
import { decodeMessage, encodeMessage, type Message } from "./message.js";
import { nameFromText, readName } from "./name.js";
import { parseQuery } from "./query.js";
import { parseRecordData } from "../zones/record-text.js";

const rr = (name: string, type: keyof typeof TYPE, data: string) => ({ name: nameFromText(name), type: TYPE[type], class: CLASS.IN, ttl: 60, data: parseRecordData(TYPE[type], data) });

function seeds(): Buffer[] {
  const base: Message = {
    id: 1,
    flags: FLAG.QR | FLAG.RD | FLAG.RA,
    rcode: 0,
    questions: [{ name: nameFromText("www.example.com."), type: TYPE.A, class: CLASS.IN }],
    answers: [rr("www.example.com.", "CNAME", "web.example.com."), rr("web.example.com.", "A", "192.0.2.1"), rr("web.example.com.", "MX", "10 mx.example.com.")],
    authorities: [rr("example.com.", "NS", "ns.example.com."), rr("example.com.", "TXT", '"hello" "world"')],
    additionals: [rr("ns.example.com.", "AAAA", "2001:db8::1")],
    edns: { udpSize: 1232, version: 0, flags: EDNS_DO, options: [{ code: 10, data: Buffer.alloc(8, 7) }] },
  };
  const query: Message = { ...base, flags: FLAG.RD, answers: [], authorities: [], additionals: [] };
  return [Buffer.from(encodeMessage(base).wire), Buffer.from(encodeMessage(query).wire)];
}

function decodeOrWireError(buf: Buffer): Message | undefined {
  try {
    return decodeMessage(buf);
  } catch (err) {
    if (!(err instanceof WireError)) throw err;
    return undefined;
  }
}

describe("codec fuzzing", () => {
  it("random buffers: WireError or a message that round-trips", () => {
    const rng = seeded(0xd15ea5e);
    let decoded = 0;
    for (let i = 0; i < 5000; i++) {
      let buf = randomBytes(rng, below(rng, 200));
      if (i % 2 === 0) {
        // A header with one question and a name of random labels, so decoding gets past the header.
        const labels = Array.from({ length: below(rng, 4) }, () => {
          const l = randomBytes(rng, 1 + below(rng, 6));
          return Buffer.concat([Buffer.from([l.length]), l]);
        });
        const header = Buffer.from([below(rng, 256), below(rng, 256), 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0]);
        buf = Buffer.concat([header, ...labels, Buffer.from([0]), randomBytes(rng, below(rng, 8))]);
      }
      const m = decodeOrWireError(buf);
      if (m === undefined) continue;
      decoded++;
      expect(decodeMessage(Buffer.from(encodeMessage(m).wire))).toEqual({ ...m, id: m.id });
    }
    expect(decoded).toBeGreaterThan(0);
  }, 60_000);

  it("mutations of valid messages (pointers anywhere, loops, huge counts): no other exception", () => {
    const rng = seeded(42);
    let rejected = 0;
    for (const seed of seeds()) {
      for (let i = 0; i < 4000; i++) {
        const m = decodeOrWireError(mutate(rng, seed));
        if (m === undefined) rejected++;
        else expect(() => encodeMessage(m)).not.toThrow();
      }
    }
    expect(rejected).toBeGreaterThan(0);
  }, 60_000);

  it("the query parser answers every buffer with a query or a problem", () => {
    const rng = seeded(7);
    for (const seed of seeds()) {
      for (let i = 0; i < 4000; i++) {
        const r = parseQuery(mutate(rng, seed));
        expect(typeof r).toBe("object");
      }
    }
  }, 60_000);

  it("a chain of 200 pointers, each to the one before, stops at 255 bytes", () => {
    // "a." at 0, then 200 names "a" + pointer to the previous one: each step is a legal backward jump.
    const parts = [Buffer.from([1, 0x61, 0])];
    for (let i = 0; i < 200; i++) {
      const target = i === 0 ? 0 : 3 + (i - 1) * 4;
      parts.push(Buffer.from([1, 0x61, 0xc0 | (target >> 8), target & 0xff]));
    }
    const msg = Buffer.concat(parts);
    expect(() => readName(msg, 3 + 199 * 4)).toThrow(/255 bytes/);
    expect(readName(msg, 3 + 10 * 4)[0]).toHaveLength(2 * 12 + 1);
  });
});
