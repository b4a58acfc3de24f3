// The validator against zones signed in the test (ECDSA P-256): a chain anchor → example. → sub.example.,
// an unsigned delegation, tampered and expired signatures, NSEC denial; and RFC 5155's NSEC3 hash vector.
import { describe, expect, it } from "vitest";
import { rr, TestZone, nsecFor } from "../test-support/signer.js";
import { upstreamQuestion } from "../upstream/question.js";
import { EDE, FLAG, RCODE, TYPE } from "../wire/constants.js";
import type { Message, ResourceRecord } from "../wire/message.js";
import { nameFromText, nameKey } from "../wire/name.js";
import { base32hexEncode, nsec3Hash } from "./records.js";
import type { UpstreamQuestion } from "../upstream/question.js";
import { DnssecValidator } from "./validator.js";

const example = new TestZone("example.");
const sub = new TestZone("sub.example.");
const chain = example.nsecChain({
  "example.": ["SOA", "NS", "DNSKEY"],
  "sub.example.": ["NS", "DS"],
  "unsigned.example.": ["NS"],
  "www.example.": ["A"],
});
const soa = example.signed([rr("example.", "SOA", Buffer.concat([nameFromText("ns.example."), nameFromText("admin.example."), Buffer.alloc(20, 1)]))]);

function msg(q: UpstreamQuestion, rcode: number, answers: ResourceRecord[], authorities: ResourceRecord[] = []): Message {
  return { id: 0, flags: FLAG.QR, rcode, questions: [{ name: q.name, type: q.type, class: 1 }], answers, authorities, additionals: [] };
}

/** What an upstream would answer to the validator's own DNSKEY and DS questions. */
function server(overrides: { subDs?: ResourceRecord[] } = {}) {
  const asked: string[] = [];
  const fetch = async (q: UpstreamQuestion): Promise<Message> => {
    const key = `${nameKey(q.name)}/${q.type}`;
    asked.push(key);
    const is = (n: string, t: number) => key === `${nameKey(nameFromText(n))}/${t}`;
    if (is("example.", TYPE.DNSKEY)) return msg(q, RCODE.NOERROR, example.signed(example.dnskeys()));
    if (is("sub.example.", TYPE.DNSKEY)) return msg(q, RCODE.NOERROR, sub.signed(sub.dnskeys()));
    if (is("sub.example.", TYPE.DS)) return msg(q, RCODE.NOERROR, overrides.subDs ?? example.signed([sub.ds()]));
    if (is("unsigned.example.", TYPE.DS)) return msg(q, RCODE.NOERROR, [], [...soa, ...nsecFor(chain, ["unsigned.example."])]);
    return msg(q, RCODE.SERVFAIL, []);
  };
  return { fetch, asked };
}

const q = (name: string, type: keyof typeof TYPE) => upstreamQuestion(nameFromText(name), TYPE[type], { dnssecOk: true, checkingDisabled: true });
const validator = () => new DnssecValidator({ trustAnchors: [example.dsText()] });

describe("DNSSEC validation", () => {
  it("accepts a signed answer whose keys chain to the anchor", async () => {
    const question = q("www.example.", "A");
    const answer = msg(question, RCODE.NOERROR, example.signed([rr("www.example.", "A", "192.0.2.1")]));
    expect(await validator().validate(answer, question, server().fetch)).toEqual({ status: "secure" });
  });

  it("calls tampered data, expired and future signatures bogus, with the matching EDE", async () => {
    const question = q("www.example.", "A");
    const signedSet = example.signed([rr("www.example.", "A", "192.0.2.1")]);
    const tampered = [rr("www.example.", "A", "192.0.2.66"), signedSet[1]!];
    expect(await validator().validate(msg(question, RCODE.NOERROR, tampered), question, server().fetch)).toMatchObject({ status: "bogus", ede: EDE.DNSSEC_BOGUS });
    const now = Math.floor(Date.now() / 1000);
    const expired = example.signed([rr("www.example.", "A", "192.0.2.1")], { inception: now - 7200, expiration: now - 3600 });
    expect(await validator().validate(msg(question, RCODE.NOERROR, expired), question, server().fetch)).toMatchObject({ status: "bogus", ede: EDE.SIGNATURE_EXPIRED });
    const future = example.signed([rr("www.example.", "A", "192.0.2.1")], { inception: now + 3600, expiration: now + 7200 });
    expect(await validator().validate(msg(question, RCODE.NOERROR, future), question, server().fetch)).toMatchObject({ status: "bogus", ede: EDE.SIGNATURE_NOT_YET_VALID });
    const unsigned = [rr("www.example.", "A", "192.0.2.1")];
    expect(await validator().validate(msg(question, RCODE.NOERROR, unsigned), question, server().fetch)).toMatchObject({ status: "bogus", ede: EDE.RRSIGS_MISSING });
  });

  it("proves NXDOMAIN and NODATA with NSEC, and refuses a negative answer without proof", async () => {
    const nx = q("nope.example.", "A");
    const proof = [...soa, ...nsecFor(chain, ["example."])];
    expect(await validator().validate(msg(nx, RCODE.NXDOMAIN, [], proof), nx, server().fetch)).toEqual({ status: "secure" });
    expect(await validator().validate(msg(nx, RCODE.NXDOMAIN, [], soa), nx, server().fetch)).toMatchObject({ status: "bogus", ede: EDE.NSEC_MISSING });
    const nodata = q("www.example.", "MX");
    expect(await validator().validate(msg(nodata, RCODE.NOERROR, [], [...soa, ...nsecFor(chain, ["www.example."])]), nodata, server().fetch)).toEqual({ status: "secure" });
    // The NSEC at www says A exists: it cannot prove there is no A.
    const lie = q("www.example.", "A");
    expect(await validator().validate(msg(lie, RCODE.NOERROR, [], [...soa, ...nsecFor(chain, ["www.example."])]), lie, server().fetch)).toMatchObject({ status: "bogus" });
  });

  it("follows DS records into a child zone, and rejects a DS that matches no child key", async () => {
    const question = q("host.sub.example.", "A");
    const answer = msg(question, RCODE.NOERROR, sub.signed([rr("host.sub.example.", "A", "192.0.2.7")]));
    const s = server();
    expect(await validator().validate(answer, question, s.fetch)).toEqual({ status: "secure" });
    expect(s.asked).toEqual([`${nameKey(nameFromText("sub.example."))}/${TYPE.DS}`, `${nameKey(nameFromText("example."))}/${TYPE.DNSKEY}`, `${nameKey(nameFromText("sub.example."))}/${TYPE.DNSKEY}`]);
    const stranger = new TestZone("sub.example.");
    const wrongDs = server({ subDs: example.signed([stranger.ds()]) });
    expect(await validator().validate(answer, question, wrongDs.fetch)).toMatchObject({ status: "bogus", ede: EDE.DNSKEY_MISSING });
  });

  it("treats a delegation proven to have no DS as insecure, and names without an anchor as indeterminate", async () => {
    const question = q("host.unsigned.example.", "A");
    const answer = msg(question, RCODE.NOERROR, [rr("host.unsigned.example.", "A", "192.0.2.9")]);
    expect(await validator().validate(answer, question, server().fetch)).toEqual({ status: "insecure" });
    const other = q("www.other.", "A");
    expect((await validator().validate(msg(other, RCODE.NOERROR, [rr("www.other.", "A", "192.0.2.1")]), other, server().fetch)).status).toBe("indeterminate");
  });

  it("validates the root's chain with the built-in anchors only (configurable anchors replace them)", () => {
    expect(() => new DnssecValidator({ trustAnchors: [] })).not.toThrow();
    expect(() => new DnssecValidator({ trustAnchors: ["example. IN A 192.0.2.1"] })).toThrow(/DS or DNSKEY/);
  });
});

describe("NSEC3 hashing", () => {
  it("matches RFC 5155 Appendix A", () => {
    const h = nsec3Hash(nameFromText("example."), Buffer.from("aabbccdd", "hex"), 12);
    expect(base32hexEncode(h)).toBe("0p9mhaveqvm6t7vbl5lop2u3t2rp3tom");
    expect(base32hexEncode(nsec3Hash(nameFromText("a.example."), Buffer.from("aabbccdd", "hex"), 12))).toBe("35mthgpgcu1qg68fab165klnsnk3dpvl");
  });
});
