// A cached record keeps no question: rendering it must give the client exactly what rendering the full
// answer gives — its id, its own spelling of the name, compression pointers past the question still right,
// TTLs aged.
import { describe, expect, it } from "vitest";
import { buildQuery } from "../test-support/client.js";
import { CLASS, FLAG, TYPE } from "../wire/constants.js";
import { decodeMessage, type Message } from "../wire/message.js";
import { nameFromText, nameToText } from "../wire/name.js";
import { isProblem, keyBuffer, parseQuery, type Query } from "../wire/query.js";
import { DEFAULT_CACHE } from "./answer-cache.js";
import { renderAnswer, renderRecord } from "./render.js";
import { buildStoredAnswer, recordOf } from "./stored-answer.js";
import { HEADER, WireStore } from "./wire-store.js";

const rr = (name: string, type: number, ttl: number, data: Buffer) => ({ name: nameFromText(name), type, class: CLASS.IN, ttl, data });

/** An upstream's answer: a CNAME whose target the A record's owner name is compressed against. */
function upstreamAnswer(): Message {
  return {
    id: 7,
    flags: FLAG.QR | FLAG.RD | FLAG.RA,
    rcode: 0,
    questions: [{ name: nameFromText("www.example.com."), type: TYPE.A, class: CLASS.IN }],
    answers: [rr("www.example.com.", TYPE.CNAME, 300, nameFromText("web.example.com.")), rr("web.example.com.", TYPE.A, 60, Buffer.from([192, 0, 2, 1]))],
    authorities: [],
    additionals: [],
  };
}

function parsed(query: Buffer): Query {
  const q = parseQuery(query);
  if (isProblem(q)) throw new Error(q.reason);
  return q;
}

describe("renderRecord", () => {
  it("gives the same bytes as the full answer, with the client's question put back", () => {
    const stored = buildStoredAnswer(upstreamAnswer(), { now: 1_000, dnssecOk: false, policy: DEFAULT_CACHE });
    const query = buildQuery({ name: "WwW.eXample.COM.", id: 0x4242 });
    const q = parsed(query);
    const store = new WireStore(10, 64 * 1024);
    const off = store.set(keyBuffer, 0, q.keyLen, recordOf(stored));
    expect(off).toBeGreaterThanOrEqual(0);
    const question = q.nameEnd + 4 - 12;
    // What the arena holds: the answer less its question, plus the key and the record header.
    expect(store.wireLen(off)).toBe(stored.wire.length - question);
    expect(store.bytes).toBeLessThanOrEqual(HEADER + q.keyLen + stored.wire.length - question + stored.ttlPairs.length + 3);

    const opts = { now: 1_000 + 10_500, limit: 1232 };
    const fromRecord = renderRecord(store, off, query, q, opts);
    expect(fromRecord).toEqual(renderAnswer(stored, query, q, opts));
    const msg = decodeMessage(fromRecord);
    expect(msg.id).toBe(0x4242);
    expect(nameToText(msg.questions[0]!.name)).toBe("WwW.eXample.COM.");
    // Names compressed against the question take the client's spelling; the CNAME target's own label stays.
    expect(msg.answers.map((a) => [nameToText(a.name), a.type, a.ttl])).toEqual([
      ["WwW.eXample.COM.", TYPE.CNAME, 290],
      ["web.eXample.COM.", TYPE.A, 50],
    ]);
    expect(nameToText(msg.answers[0]!.data)).toBe("web.eXample.COM.");
    expect(msg.edns?.udpSize).toBe(1232);
  });

  it("truncates to the client's question when the answer does not fit", () => {
    const stored = buildStoredAnswer(upstreamAnswer(), { now: 0, dnssecOk: false, policy: DEFAULT_CACHE });
    const query = buildQuery({ name: "www.example.com.", edns: false });
    const q = parsed(query);
    const store = new WireStore(10, 64 * 1024);
    const off = store.set(keyBuffer, 0, q.keyLen, recordOf(stored));
    const out = renderRecord(store, off, query, q, { now: 0, limit: 40 });
    const msg = decodeMessage(out);
    expect([msg.flags & FLAG.TC, msg.answers.length, nameToText(msg.questions[0]!.name)]).toEqual([FLAG.TC, 0, "www.example.com."]);
  });
});
