// The resolver end to end on loopback: real UDP/TCP sockets, the in-process fake upstream (the namespace
// tests repeat the important cases against a real unbound).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseResolverConfig, type ResolverConfig } from "./config/config.js";
import { ResolverRuntime } from "./runtime.js";
import { ask, buildQuery, tcpExchange, udpExchange } from "./test-support/client.js";
import { FakeUpstream } from "./test-support/fake-upstream.js";
import { EDNS_OPTION, FLAG, RCODE, TYPE } from "./wire/constants.js";
import { decodeMessage } from "./wire/message.js";
import { nameToText } from "./wire/name.js";
import { printRecordData } from "./zones/record-text.js";

let dir: string;
let runtimes: ResolverRuntime[] = [];
let upstreams: FakeUpstream[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "rd-dns-rt-"));
});

afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.close();
  for (const u of upstreams.splice(0)) u.close();
  rmSync(dir, { recursive: true, force: true });
});

async function upstream(): Promise<FakeUpstream> {
  const u = await new FakeUpstream().start();
  upstreams.push(u);
  return u;
}

function config(over: Record<string, unknown> = {}): ResolverConfig {
  return parseResolverConfig({
    listen: [{ name: "lo", addresses: ["127.0.0.1"], port: 0, sources: ["127.0.0.0/8"] }],
    zones: [
      {
        name: "lan",
        zone: "lan.",
        ttl: 300,
        records: [
          { name: "router.lan.", type: "A", data: "192.168.1.1" },
          { name: "router.lan.", type: "AAAA", data: "fd00::1" },
          { name: "www.lan.", type: "CNAME", data: "router.lan." },
          { name: "alias.lan.", type: "CNAME", data: "www.lan." },
          { name: "ext.lan.", type: "CNAME", data: "host.example." },
          { name: "a.b.deep.lan.", type: "A", data: "192.168.1.9" },
        ],
        reverseZones: ["1.168.192.in-addr.arpa."],
      },
    ],
    ...over,
  });
}

async function start(cfg: ResolverConfig): Promise<{ rt: ResolverRuntime; port: number }> {
  const rt = await ResolverRuntime.start(cfg);
  runtimes.push(rt);
  return { rt, port: rt.listeners.states()[0]!.port };
}

const texts = (m: { answers: { type: number; data: Buffer }[] }) => m.answers.map((a) => printRecordData(a.type, a.data));

describe("local zones", () => {
  it("answers records authoritatively, follows CNAME chains and synthesizes PTR", async () => {
    const { port } = await start(config());
    const a = await ask(port, { name: "router.lan", type: "A" });
    expect(a.rcode).toBe(RCODE.NOERROR);
    expect(a.flags & FLAG.AA).toBeTruthy();
    expect(texts(a)).toEqual(["192.168.1.1"]);
    const chain = await ask(port, { name: "alias.lan", type: "AAAA" });
    expect(chain.answers.map((r) => [nameToText(r.name), r.type])).toEqual([
      ["alias.lan.", TYPE.CNAME],
      ["www.lan.", TYPE.CNAME],
      ["router.lan.", TYPE.AAAA],
    ]);
    const ptr = await ask(port, { name: "1.1.168.192.in-addr.arpa", type: "PTR" });
    expect(texts(ptr)).toEqual(["router.lan."]);
    const ptr6 = await ask(port, { name: "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa", type: "PTR" });
    expect(texts(ptr6)).toEqual(["router.lan."]);
  });

  it("tells NXDOMAIN from NODATA, both with the zone's SOA", async () => {
    const { port } = await start(config());
    const nx = await ask(port, { name: "nope.lan", type: "A" });
    expect(nx.rcode).toBe(RCODE.NXDOMAIN);
    expect(nx.authorities.map((r) => r.type)).toEqual([TYPE.SOA]);
    const nodata = await ask(port, { name: "router.lan", type: "MX" });
    expect(nodata.rcode).toBe(RCODE.NOERROR);
    expect(nodata.answers).toHaveLength(0);
    expect(nodata.authorities.map((r) => r.type)).toEqual([TYPE.SOA]);
    // An empty non-terminal exists: NODATA, not NXDOMAIN.
    const ent = await ask(port, { name: "b.deep.lan", type: "A" });
    expect(ent.rcode).toBe(RCODE.NOERROR);
    const reverseMiss = await ask(port, { name: "77.1.168.192.in-addr.arpa", type: "PTR" });
    expect(reverseMiss.rcode).toBe(RCODE.NXDOMAIN);
  });

  it("keeps the client's 0x20 spelling of the question and owner names", async () => {
    const { port } = await start(config());
    await ask(port, { name: "router.lan", type: "A" });
    const raw = await udpExchange(port, buildQuery({ name: "RoUtEr.LaN", type: "A" }));
    const m = decodeMessage(raw);
    expect(nameToText(m.questions[0]!.name)).toBe("RoUtEr.LaN.");
    expect(nameToText(m.answers[0]!.name)).toBe("RoUtEr.LaN.");
  });

  it("refuses ANY with the RFC 8482 HINFO, other classes, and clients outside sources", async () => {
    const { port } = await start(config());
    const any = await ask(port, { name: "router.lan", type: "ANY" });
    expect(any.answers.map((r) => r.type)).toEqual([TYPE.HINFO]);
    expect(any.answers[0]!.data.toString("latin1")).toContain("RFC8482");
    const chaos = await ask(port, { name: "version.bind", type: "TXT", qclass: 3 });
    expect(chaos.rcode).toBe(RCODE.REFUSED);

    const { port: closed } = await start(config({ listen: [{ name: "lo", addresses: ["127.0.0.1"], port: 0, sources: ["10.0.0.0/8"] }] }));
    const refused = await ask(closed, { name: "router.lan", type: "A" });
    expect(refused.rcode).toBe(RCODE.REFUSED);
    expect(refused.edns?.options.find((o) => o.code === EDNS_OPTION.EDE)?.data.readUInt16BE(0)).toBe(18);
  });

  it("answers FORMERR to garbage, BADVERS to EDNS version 1, and drops responses", async () => {
    const { rt, port } = await start(config());
    const formerr = decodeMessage(await udpExchange(port, Buffer.from([0x12, 0x34, 0x01, 0x00, 0x00, 0x02, 0, 0, 0, 0, 0, 0])));
    expect(formerr.rcode).toBe(RCODE.FORMERR);
    const badvers = await ask(port, { name: "router.lan", ednsVersion: 1 });
    expect(badvers.rcode).toBe(RCODE.BADVERS);
    const response = buildQuery({ name: "router.lan" });
    response[2]! |= 0x80;
    await expect(udpExchange(port, response, "127.0.0.1", 300)).rejects.toThrow(/timeout/);
    expect(rt.resolver.stats.dropped).toBe(1);
  });
});

describe("transport", () => {
  it("truncates a UDP answer larger than the client's size and answers in full over TCP, pipelined", async () => {
    const many = Array.from({ length: 60 }, (_, i) => ({ name: "big.lan.", type: "A", data: `10.0.${i >> 8}.${i & 255}` }));
    const cfg = config();
    cfg.zones[0]!.records.push(...(many as never[]));
    const { port } = await start(cfg);
    const small = await ask(port, { name: "big.lan", type: "A", edns: false });
    expect(small.flags & FLAG.TC).toBeTruthy();
    expect(small.answers).toHaveLength(0);
    const replies = await tcpExchange(port, [buildQuery({ name: "big.lan", id: 1 }), buildQuery({ name: "router.lan", id: 2 }), buildQuery({ name: "nope.lan", id: 3 })]);
    const byId = new Map(replies.map((r) => [r.readUInt16BE(0), decodeMessage(r)]));
    expect(byId.get(1)!.answers).toHaveLength(60);
    expect(byId.get(2)!.answers).toHaveLength(1);
    expect(byId.get(3)!.rcode).toBe(RCODE.NXDOMAIN);
  });
});

describe("forwarding", () => {
  function forwarding(ups: FakeUpstream[], over: Record<string, unknown> = {}): ResolverConfig {
    return config({
      forwarders: [{ name: "default", match: ["."], upstreams: ups.map((_, i) => `u${i}`), healthcheck: { intervalMs: 60_000, timeoutMs: 500, failThreshold: 2, passThreshold: 1 } }],
      upstreams: ups.map((u, i) => ({ name: `u${i}`, protocol: "udp", address: "127.0.0.1", port: u.port })),
      ...over,
    });
  }

  it("forwards, caches with decreasing TTLs and answers negative answers from the cache (RFC 2308)", async () => {
    const u = await upstream();
    u.add({ name: "host.example.", type: "A", data: "192.0.2.10", ttl: 100 });
    let now = 1_000_000;
    const rt = await ResolverRuntime.start(forwarding([u]), { now: () => now });
    runtimes.push(rt);
    const port = rt.listeners.states()[0]!.port;
    const first = await ask(port, { name: "host.example", type: "A" });
    expect(texts(first)).toEqual(["192.0.2.10"]);
    expect(first.answers[0]!.ttl).toBe(100);
    now += 30_000;
    const second = await ask(port, { name: "HOST.example", type: "A" });
    expect(second.answers[0]!.ttl).toBe(70);
    expect(u.seen).toEqual(["host.example. A"]);
    const nx1 = await ask(port, { name: "missing.example", type: "A" });
    const nx2 = await ask(port, { name: "missing.example", type: "A" });
    expect([nx1.rcode, nx2.rcode]).toEqual([RCODE.NXDOMAIN, RCODE.NXDOMAIN]);
    expect(nx2.authorities[0]!.type).toBe(TYPE.SOA);
    expect(u.seen.filter((s) => s.startsWith("missing"))).toHaveLength(1);
    expect(rt.resolver.stats.cacheHits).toBe(2);
  });

  it("coalesces identical concurrent misses into one upstream query", async () => {
    const u = await upstream();
    u.add({ name: "slow.example.", type: "A", data: "192.0.2.1" });
    u.delayMs = 100;
    const { rt, port } = await start(forwarding([u]));
    const answers = await Promise.all(Array.from({ length: 10 }, () => ask(port, { name: "slow.example", type: "A" })));
    expect(answers.every((a) => texts(a)[0] === "192.0.2.1")).toBe(true);
    expect(u.seen).toHaveLength(1);
    expect(rt.resolver.stats.coalesced).toBe(9);
  });

  it("fails over to the next upstream when one stalls or fails, and marks it down", async () => {
    const bad = await upstream();
    bad.behaviour = "stall";
    const good = await upstream();
    good.add({ name: "a.example.", type: "A", data: "192.0.2.2" }, { name: "b.example.", type: "A", data: "192.0.2.3" }, { name: "c.example.", type: "A", data: "192.0.2.4" });
    const transitions: string[] = [];
    const rt = await ResolverRuntime.start(forwarding([bad, good]), { onUpstreamTransition: (up, t) => transitions.push(`${up.name}:${t.to}`) });
    runtimes.push(rt);
    const port = rt.listeners.states()[0]!.port;
    // Concurrent queries all try the (equally ranked, first listed) stalled upstream, then hedge to the good one.
    const answers = await Promise.all(["a", "b", "c"].map((n) => ask(port, { name: `${n}.example` })));
    expect(answers.map((a) => texts(a).length)).toEqual([1, 1, 1]);
    // The stalled attempts time out after the health check's 500 ms and count as failures.
    for (let i = 0; i < 40 && !transitions.includes("u0:down"); i++) await new Promise((r) => setTimeout(r, 50));
    expect(transitions).toContain("u0:down");
    // Down upstreams rank last: the next query goes straight to the good one.
    const before = bad.seen.length;
    await ask(port, { name: "a.example", type: "AAAA" });
    expect(bad.seen.length).toBe(before);
  });

  it("moves on at once when an upstream answers SERVFAIL", async () => {
    const bad = await upstream();
    bad.behaviour = "servfail";
    const good = await upstream();
    good.add({ name: "a.example.", type: "A", data: "192.0.2.2" });
    const { port } = await start(forwarding([bad, good]));
    expect(texts(await ask(port, { name: "a.example" }))).toEqual(["192.0.2.2"]);
    expect(bad.seen).toHaveLength(1);
    expect(good.seen).toHaveLength(1);
  });

  it("answers SERVFAIL within 2 s when every upstream is down and nothing is cached", async () => {
    const a = await upstream();
    const b = await upstream();
    a.behaviour = b.behaviour = "stall";
    const { port } = await start(forwarding([a, b]));
    const t0 = Date.now();
    const m = await ask(port, { name: "nothing.example" });
    expect(m.rcode).toBe(RCODE.SERVFAIL);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it("serves a stale answer when upstreams fail after expiry (RFC 8767)", async () => {
    const u = await upstream();
    u.add({ name: "stale.example.", type: "A", data: "192.0.2.7", ttl: 10 });
    let now = 5_000_000;
    const rt = await ResolverRuntime.start(forwarding([u]), { now: () => now });
    runtimes.push(rt);
    const port = rt.listeners.states()[0]!.port;
    await ask(port, { name: "stale.example" });
    now += 20_000;
    u.behaviour = "servfail";
    const stale = await ask(port, { name: "stale.example" });
    expect(texts(stale)).toEqual(["192.0.2.7"]);
    expect(stale.answers[0]!.ttl).toBeLessThanOrEqual(30);
    expect(stale.edns?.options.find((o) => o.code === EDNS_OPTION.EDE)?.data.readUInt16BE(0)).toBe(3);
    expect(rt.resolver.stats.staleAnswers).toBe(1);
  });

  it("retries over TCP when the upstream truncates, and ignores replies for other questions", async () => {
    const u = await upstream();
    u.add({ name: "tc.example.", type: "A", data: "192.0.2.8" });
    u.behaviour = "truncate";
    const { port } = await start(forwarding([u]));
    expect(texts(await ask(port, { name: "tc.example" }))).toEqual(["192.0.2.8"]);
    expect(u.seen).toEqual(["tc.example. A", "tc.example. A tcp"]);

    const liar = await upstream();
    liar.behaviour = "wrong-question";
    const { rt, port: p2 } = await start(forwarding([liar]));
    const m = await ask(p2, { name: "victim.example" });
    expect(m.rcode).toBe(RCODE.SERVFAIL);
    expect(rt.resolver.stats.mismatchedReplies).toBeGreaterThan(0);
  });

  it("routes by the longest matching suffix", async () => {
    const general = await upstream();
    const corp = await upstream();
    general.add({ name: "x.corp.example.", type: "A", data: "192.0.2.99" });
    corp.add({ name: "x.corp.example.", type: "A", data: "10.1.1.1" });
    const cfg = config({
      forwarders: [
        { name: "default", match: ["."], upstreams: ["general"] },
        { name: "corp", match: ["corp.example."], upstreams: ["corp"] },
      ],
      upstreams: [
        { name: "general", protocol: "udp", address: "127.0.0.1", port: general.port },
        { name: "corp", protocol: "udp", address: "127.0.0.1", port: corp.port },
      ],
    });
    const { port } = await start(cfg);
    expect(texts(await ask(port, { name: "x.corp.example" }))).toEqual(["10.1.1.1"]);
    expect(general.seen).toHaveLength(0);
  });

  it("completes a local CNAME whose target lies outside the local zones", async () => {
    const u = await upstream();
    u.add({ name: "host.example.", type: "A", data: "192.0.2.10" });
    const { port } = await start(forwarding([u]));
    const m = await ask(port, { name: "ext.lan" });
    expect(m.answers.map((r) => r.type)).toEqual([TYPE.CNAME, TYPE.A]);
    expect(texts(m)).toEqual(["host.example.", "192.0.2.10"]);
  });

  it("reloads without closing its sockets or dropping the cache", async () => {
    const u = await upstream();
    u.add({ name: "keep.example.", type: "A", data: "192.0.2.5" });
    const { rt, port } = await start(forwarding([u]));
    await ask(port, { name: "keep.example" });
    const cfg = forwarding([u]);
    cfg.zones[0]!.records.push({ name: "new.lan.", type: "A", data: "192.168.1.50" });
    await rt.apply(cfg);
    expect(rt.listeners.states()[0]!.port).toBe(port);
    expect(texts(await ask(port, { name: "new.lan" }))).toEqual(["192.168.1.50"]);
    expect(texts(await ask(port, { name: "keep.example" }))).toEqual(["192.0.2.5"]);
    expect(u.seen).toHaveLength(1);
  });

  it("publishes DHCP clients from the lease file and drops them when they go", async () => {
    const leaseFile = join(dir, "leases");
    writeFileSync(leaseFile, "");
    const cfg = config();
    cfg.zones[0]!.dhcp = { leaseFile, suffix: "lan.", ttl: 30, networks: ["192.168.1.0/24"] };
    const { port } = await start(cfg);
    expect((await ask(port, { name: "laptop.lan" })).rcode).toBe(RCODE.NXDOMAIN);
    const expiry = Math.floor(Date.now() / 1000) + 3600;
    writeFileSync(leaseFile, `${expiry} 02:00:00:00:00:01 192.168.1.100 laptop 01:02:00:00:00:00:00:01\n${expiry} 02:00:00:00:00:02 10.9.9.9 outsider *\n`);
    const t0 = Date.now();
    for (;;) {
      const m = await ask(port, { name: "laptop.lan" });
      if (m.rcode === RCODE.NOERROR) {
        expect(texts(m)).toEqual(["192.168.1.100"]);
        break;
      }
      if (Date.now() - t0 > 2000) throw new Error("lease not published within 2 s");
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(texts(await ask(port, { name: "100.1.168.192.in-addr.arpa", type: "PTR" }))).toEqual(["laptop.lan."]);
    writeFileSync(leaseFile, "");
    const t1 = Date.now();
    while ((await ask(port, { name: "laptop.lan" })).rcode !== RCODE.NXDOMAIN) {
      if (Date.now() - t1 > 2000) throw new Error("released lease still resolvable after 2 s");
      await new Promise((r) => setTimeout(r, 50));
    }
  });
});
