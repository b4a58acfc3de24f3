// The codec against dns-packet (an independent implementation) and against hostile input.
import dnsPacket from "dns-packet";
import { describe, expect, it } from "vitest";
import { CLASS, EDNS_DO, FLAG, RCODE, TYPE } from "./constants.js";
import { decodeMessage, encodeMessage, type Message } from "./message.js";
import { nameFromText, nameToText } from "./name.js";
import { isProblem, parseQuery, queryKey } from "./query.js";
import { hashKey } from "../cache/wire-store.js";
import { parseRecordData, printRecordData } from "../zones/record-text.js";

const rr = (name: string, type: keyof typeof TYPE, data: string, ttl = 300) => ({ name: nameFromText(name), type: TYPE[type], class: CLASS.IN, ttl, data: parseRecordData(TYPE[type], data) });

function sample(): Message {
  return {
    id: 4242,
    flags: FLAG.QR | FLAG.RD | FLAG.RA,
    rcode: RCODE.NOERROR,
    questions: [{ name: nameFromText("www.example.com."), type: TYPE.A, class: CLASS.IN }],
    answers: [rr("www.example.com.", "CNAME", "web.example.com."), rr("web.example.com.", "A", "192.0.2.1", 60)],
    authorities: [rr("example.com.", "NS", "ns1.example.com.")],
    additionals: [rr("ns1.example.com.", "AAAA", "2001:db8::53")],
    edns: { udpSize: 1232, version: 0, flags: EDNS_DO, options: [] },
  };
}

describe("message codec", () => {
  it("encodes what dns-packet decodes, with compression", () => {
    const { wire, ttlOffsets } = encodeMessage(sample());
    const p = dnsPacket.decode(wire);
    expect(p.id).toBe(4242);
    expect(p.answers?.map((a) => [a.name, a.type, (a as { data: unknown }).data])).toEqual([
      ["www.example.com", "CNAME", "web.example.com"],
      ["web.example.com", "A", "192.0.2.1"],
    ]);
    expect((p.additionals ?? []).find((a) => a.type === "OPT")).toBeDefined();
    // Compressed: far shorter than writing every name in full.
    expect(wire.length).toBeLessThan(dnsPacket.encode(p).length + 20);
    expect(ttlOffsets).toHaveLength(4);
    expect(ttlOffsets.map((o) => wire.readUInt32BE(o))).toEqual([300, 60, 300, 300]);
  });

  it("decodes what dns-packet encodes and round-trips its own output", () => {
    const foreign = dnsPacket.encode({
      type: "response",
      id: 7,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
      questions: [{ type: "MX", name: "example.org" }],
      answers: [{ type: "MX", name: "example.org", ttl: 99, data: { preference: 10, exchange: "mail.example.org" } }],
      authorities: [{ type: "SOA", name: "example.org", ttl: 5, data: { mname: "ns.example.org", rname: "h.example.org", serial: 1, refresh: 2, retry: 3, expire: 4, minimum: 5 } }],
    });
    const m = decodeMessage(Buffer.from(foreign));
    expect(printRecordData(TYPE.MX, m.answers[0]!.data)).toBe("10 mail.example.org.");
    expect(printRecordData(TYPE.SOA, m.authorities[0]!.data)).toBe("ns.example.org. h.example.org. 1 2 3 4 5");
    const again = decodeMessage(encodeMessage(m).wire);
    expect(again.answers.map((a) => printRecordData(a.type, a.data))).toEqual(["10 mail.example.org."]);
    expect(nameToText(again.questions[0]!.name)).toBe("example.org.");
  });

  it("truncates to the question with TC when over the size limit", () => {
    const big: Message = { ...sample(), answers: Array.from({ length: 40 }, (_, i) => rr("x.example.", "A", `10.0.0.${i}`)) };
    const { wire, truncated } = encodeMessage(big, { maxSize: 512 });
    expect(truncated).toBe(true);
    const m = decodeMessage(wire);
    expect(m.flags & FLAG.TC).toBeTruthy();
    expect(m.answers).toHaveLength(0);
    expect(m.edns?.udpSize).toBe(1232);
  });

  it("carries extended rcodes in OPT", () => {
    const m = decodeMessage(encodeMessage({ ...sample(), rcode: RCODE.BADVERS, answers: [], authorities: [], additionals: [] }).wire);
    expect(m.rcode).toBe(RCODE.BADVERS);
  });

  it("rejects records whose data does not fit their type", () => {
    const bad = Buffer.from(encodeMessage({ ...sample(), edns: undefined, authorities: [], additionals: [], answers: [rr("a.", "A", "192.0.2.1")] } as Message).wire);
    // Claim 5 bytes of A data.
    const at = bad.length - 6;
    bad.writeUInt16BE(5, at);
    expect(() => decodeMessage(Buffer.concat([bad, Buffer.from([0])]))).toThrow(/type that has 4/);
  });
});

describe("query parser", () => {
  const query = (name: string, type: string, opts: { do?: boolean; cd?: boolean } = {}) =>
    Buffer.from(
      dnsPacket.encode({
        type: "query",
        id: 99,
        flags: dnsPacket.RECURSION_DESIRED | (opts.cd ? dnsPacket.CHECKING_DISABLED : 0),
        questions: [{ type: type as "A", name }],
        additionals: [{ type: "OPT", name: ".", udpPayloadSize: 4096, flags: opts.do ? dnsPacket.DNSSEC_OK : 0, options: [] } as dnsPacket.Answer],
      }),
    );

  it("keys a question by lower-cased name, type, class and the DO/CD bits", () => {
    const keyOf = (wire: Buffer) => {
      const q = parseQuery(wire);
      if (isProblem(q)) throw new Error("parse failed");
      return { q: { ...q }, key: queryKey(q) };
    };
    const a = keyOf(query("WWW.Example.com", "A"));
    const b = keyOf(query("www.example.COM", "A"));
    const c = keyOf(query("www.example.com", "A", { do: true }));
    const d = keyOf(query("www.example.com", "AAAA"));
    expect(a.key).toBe(b.key);
    expect(a.q.keyHash).toBe(b.q.keyHash);
    expect(new Set([a.key, c.key, d.key]).size).toBe(3);
    expect(a.key.slice(0, a.q.nameLength)).toBe(nameFromText("www.example.com").toString("latin1"));
    expect(a.q.keyHash).toBe(hashKey(Buffer.from(a.key, "latin1"), 0, a.key.length));
    expect([a.q.edns, a.q.udpSize, c.q.dnssecOk, a.q.qtype, a.q.id]).toEqual([true, 4096, true, TYPE.A, 99]);
  });

  it("says FORMERR, NOTIMP or drop for what it cannot answer", () => {
    const q = query("example.com", "A");
    const response = Buffer.from(q);
    response[2]! |= 0x80;
    expect(parseQuery(response)).toMatchObject({ drop: true });
    const notify = Buffer.from(q);
    notify[2] = (notify[2]! & 0x87) | (4 << 3);
    expect(parseQuery(notify)).toMatchObject({ drop: false, rcode: RCODE.NOTIMP });
    const twoQuestions = Buffer.from(q);
    twoQuestions.writeUInt16BE(2, 4);
    expect(parseQuery(twoQuestions)).toMatchObject({ rcode: RCODE.FORMERR });
    const pointer = Buffer.concat([q.subarray(0, 12), Buffer.from([0xc0, 0x0c, 0, 1, 0, 1])]);
    pointer.writeUInt16BE(0, 10);
    expect(parseQuery(pointer)).toMatchObject({ rcode: RCODE.FORMERR });
    expect(parseQuery(q.subarray(0, 20))).toMatchObject({ rcode: RCODE.FORMERR });
  });
  it("gives every encoded message its own bytes, with no compression targets carried over from the one before", () => {
    const first = encodeMessage(sample());
    const firstCopy = Buffer.from(first.wire);
    // A different message after it: its names must not point into the first message.
    const other: Message = { ...sample(), id: 7, answers: [rr("web.example.com.", "A", "192.0.2.9")], authorities: [], additionals: [] };
    const second = encodeMessage(other);
    expect(first.wire.equals(firstCopy)).toBe(true);
    expect(second.wire.buffer === first.wire.buffer && second.wire.byteOffset === first.wire.byteOffset).toBe(false);
    const p = dnsPacket.decode(second.wire);
    expect(p.id).toBe(7);
    expect(p.answers?.map((a) => [a.name, (a as { data: unknown }).data])).toEqual([["web.example.com", "192.0.2.9"]]);
    // Same message twice: same bytes (nothing left over in the shared writer).
    expect(encodeMessage(sample()).wire.equals(firstCopy)).toBe(true);
  });

  it("decodes a message without EDNS to one without an edns key, and one with EDNS to the same fields plus edns", () => {
    const withEdns = decodeMessage(encodeMessage(sample()).wire);
    const { edns: _ignored, ...rest } = sample();
    const without = decodeMessage(encodeMessage(rest).wire);
    expect(Object.keys(without)).toEqual(["id", "flags", "rcode", "questions", "answers", "authorities", "additionals"]);
    expect(Object.keys(withEdns)).toEqual([...Object.keys(without), "edns"]);
    expect(withEdns.edns).toEqual({ udpSize: 1232, version: 0, flags: EDNS_DO, options: [] });
  });
});
