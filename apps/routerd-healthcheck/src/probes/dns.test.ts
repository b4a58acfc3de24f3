import { randomBytes } from "node:crypto";
import dnsPacket from "dns-packet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProbeConfig } from "../config.js";
import { dnsResponder, type DnsResponder } from "../test-support/servers.js";
import { dnsProbe, encodeQuery, judgeReply } from "./dns.js";

const base = { name: "d", type: "dns", target: "127.0.0.1", intervalMs: 2000, timeoutMs: 300, healthyThreshold: 1, unhealthyThreshold: 1 } as const;
const query = { name: "probe.example", type: "A" } as const;

/** Runs one probe with its own timeout signal, as the runner does. */
async function run(p: Partial<ProbeConfig> & { port: number }) {
  const c = new AbortController();
  const timer = setTimeout(() => c.abort(), base.timeoutMs);
  try {
    return await dnsProbe({ ...base, query, ...p }, c.signal);
  } finally {
    clearTimeout(timer);
  }
}

describe("dns probe against a local responder", () => {
  let dns: DnsResponder;
  beforeAll(async () => {
    dns = await dnsResponder();
  });
  afterAll(() => dns.close());

  const cases: [DnsResponder["mode"], Record<string, unknown>][] = [
    ["answer", { ok: true, detail: "1 answer" }],
    ["nxdomain", { ok: false, reason: "DnsErrorRcode", error: "rcode NXDOMAIN" }],
    ["empty", { ok: false, reason: "DnsNoAnswer" }],
    ["garbage", { ok: false, reason: "MalformedReply", error: expect.stringMatching(/ignored 1 bad datagram\(s\), last: malformed/) }],
    ["wrong-id", { ok: false, reason: "MalformedReply", error: expect.stringMatching(/last: id mismatch/) }],
    ["wrong-question", { ok: false, reason: "MalformedReply", error: expect.stringMatching(/last: question mismatch/) }],
    ["ignore", { ok: false, reason: "Timeout", error: "no answer within 300 ms" }],
  ];
  for (const [mode, expected] of cases) {
    it(`responder "${mode}"`, async () => {
      dns.mode = mode;
      const before = dns.queries;
      expect(await run({ port: dns.port })).toMatchObject(expected);
      expect(dns.queries).toBe(before + 1);
    });
  }

  it("asks the configured question type (an A answer to a TXT question is ignored)", async () => {
    dns.mode = "answer";
    expect(await run({ port: dns.port, query: { name: "probe.example", type: "TXT" } })).toMatchObject({ ok: true });
  });

  it("a closed port is ConnectionRefused (ICMP port unreachable on a connected socket)", async () => {
    const closed = await dnsResponder();
    const port = closed.port;
    await closed.close();
    expect(await run({ port })).toMatchObject({ ok: false, reason: "ConnectionRefused" });
  });

  it("a missing interface fails before sending", async () => {
    expect(await run({ port: dns.port, interface: "rdnosuch0" })).toMatchObject({ ok: false, reason: "InterfaceNotFound" });
  });
});

describe("judgeReply", () => {
  const id = 0x1234;
  const encodeAnswer = (replyId: number, answers: number, name: string = query.name): Buffer =>
    dnsPacket.encode({
      type: "response",
      id: replyId,
      questions: [{ type: "A", name, class: "IN" }],
      answers: Array.from({ length: answers }, () => ({ type: "A" as const, name, ttl: 5, data: "192.0.2.1" })),
    });

  it("accepts our answer and ignores everything else", () => {
    const ok = judgeReply(encodeAnswer(id, 1), id, query);
    expect(ok).toEqual({ kind: "ok", detail: "1 answer" });
    expect(judgeReply(encodeAnswer(id + 1, 1), id, query)).toEqual({ kind: "ignore", why: "id mismatch" });
    expect(judgeReply(encodeQuery(id, query), id, query)).toEqual({ kind: "ignore", why: "not a response" });
    expect(judgeReply(Buffer.from([0x12, 0x34]), id, query)).toEqual({ kind: "ignore", why: "short datagram (2 bytes)" });
  });

  it("matches the question name case-insensitively, with or without the root dot", () => {
    expect(judgeReply(encodeAnswer(id, 1, "PROBE.Example."), id, query).kind).toBe("ok");
  });

  it("never throws on random datagrams that carry our id and the response bit", () => {
    for (let i = 0; i < 5000; i++) {
      const buf = randomBytes(12 + (i % 200));
      buf.writeUInt16BE(id, 0);
      buf[2] = buf[2]! | 0x80;
      // Half of them pass the cheap header checks, so the full decoder sees garbage too.
      if (i % 2 === 0) buf.set([0, 1, 0, i % 3, 0, 0, 0, i % 2], 4);
      const verdict = judgeReply(buf, id, query);
      expect(["ignore", "ok", "fail"]).toContain(verdict.kind);
    }
  });
});
