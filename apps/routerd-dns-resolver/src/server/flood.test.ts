// Hostile traffic against the running server: malformed and random datagrams and TCP frames, floods of
// unique names. Nothing crashes, the server keeps answering, and what it holds stays bounded.
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { parseResolverConfig } from "../config/config.js";
import { MAX_INFLIGHT } from "../resolver/resolver.js";
import { ResolverRuntime } from "../runtime.js";
import { ask, buildQuery, tcpExchange } from "../test-support/client.js";
import { FakeUpstream } from "../test-support/fake-upstream.js";
import { below, mutate, randomBytes, seeded } from "../test-support/random.js";
import { RCODE } from "../wire/constants.js";
import { createSocket } from "node:dgram";

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function start(upstreamPort: number, maxEntries = 10_000): Promise<{ rt: ResolverRuntime; port: number }> {
  const rt = await ResolverRuntime.start(
    parseResolverConfig({
      listen: [{ name: "lo", addresses: ["127.0.0.1"], port: 0 }],
      cache: { maxEntries },
      zones: [{ name: "lan", zone: "lan.", records: [{ name: "router.lan.", type: "A", data: "192.168.1.1" }] }],
      forwarders: [{ name: "d", match: ["."], upstreams: ["u"], healthcheck: { intervalMs: 60_000, timeoutMs: 1000, failThreshold: 100, passThreshold: 1 } }],
      upstreams: [{ name: "u", protocol: "udp", address: "127.0.0.1", port: upstreamPort }],
    }),
    { tcpLimits: { idleMs: 500, maxConnections: 8, maxInflightPerConnection: 4 } },
  );
  cleanup.push(() => rt.close());
  return { rt, port: rt.listeners.states()[0]!.port };
}

async function upstream(): Promise<FakeUpstream> {
  const u = await new FakeUpstream().start();
  cleanup.push(() => u.close());
  return u;
}

const reply = (): void => undefined;
const client = { address: "127.0.0.1", port: 1, protocol: "udp" as const };

describe("hostile input", () => {
  it("survives 8000 random and mutated datagrams and still answers", async () => {
    const { rt, port } = await start((await upstream()).port);
    const rng = seeded(1234);
    const seeds = [buildQuery({ name: "router.lan" }), buildQuery({ name: "x.example", dnssecOk: true })];
    const s = createSocket("udp4");
    cleanup.push(() => s.close());
    for (let i = 0; i < 8000; i++) {
      const pkt = i % 3 === 0 ? randomBytes(rng, below(rng, 600)) : mutate(rng, seeds[i % 2]!);
      // Straight into the resolver (no kernel drops) and, every 10th, over the socket too.
      rt.resolver.handle(pkt, client, reply);
      if (i % 10 === 0) s.send(pkt, port, "127.0.0.1");
    }
    expect((await ask(port, { name: "router.lan" })).rcode).toBe(RCODE.NOERROR);
    expect(rt.resolver.stats.formerr + rt.resolver.stats.dropped).toBeGreaterThan(1000);
  }, 60_000);

  it("survives malformed TCP streams and keeps its connection limits", async () => {
    const { rt, port } = await start((await upstream()).port);
    const rng = seeded(99);
    const sockets = Array.from({ length: 20 }, (_, i) => {
      const c = connect({ host: "127.0.0.1", port });
      c.on("error", () => undefined);
      c.on("connect", () => {
        // Zero-length frames, a frame claiming 65535 bytes then silence, garbage.
        if (i % 3 === 0) c.write(Buffer.from([0, 0, 0, 0]));
        else if (i % 3 === 1) c.write(Buffer.from([0xff, 0xff, 1, 2, 3]));
        else c.write(randomBytes(rng, 300));
      });
      return c;
    });
    cleanup.push(() => sockets.forEach((c) => c.destroy()));
    await new Promise((r) => setTimeout(r, 200));
    expect(rt.listeners.tcpConnections()).toBeLessThanOrEqual(8);
    const [answer] = await tcpExchange(port, [buildQuery({ name: "router.lan" })]);
    expect(answer!.readUInt16BE(6)).toBe(1);
    // Idle connections are closed after the idle timeout.
    await new Promise((r) => setTimeout(r, 800));
    expect(rt.listeners.tcpConnections()).toBe(0);
  });

  it("keeps the cache within maxEntries under a flood of unique names", async () => {
    const u = await upstream();
    const { rt } = await start(u.port, 500);
    for (let i = 0; i < 300; i++) u.add({ name: `n${i}.example.`, type: "A", data: `10.0.${i >> 8}.${i & 255}` });
    const pending: Promise<void>[] = [];
    // 1,200 distinct questions (300 names × DO × CD), 50 at a time: the fake upstream shares this process's
    // event loop, and 300 at once on a loaded machine let some time out (SERVFAIL, nothing cached).
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 300; i++) {
        pending.push(new Promise((resolve) => rt.resolver.handle(buildQuery({ name: `n${i}.example`, id: i, dnssecOk: round % 2 === 1, checkingDisabled: round > 1 }), client, () => resolve())));
        if (pending.length === 50) await Promise.all(pending.splice(0));
      }
      await Promise.all(pending.splice(0));
    }
    const answered = 1200 - rt.resolver.stats.servfail;
    expect(answered).toBeGreaterThan(500);
    expect(rt.resolver.cache.size).toBeLessThanOrEqual(500);
    // Every answered question was cached; what no longer fits was evicted.
    expect(rt.resolver.cache.evictions).toBeGreaterThanOrEqual(answered - 500);
  }, 60_000);

  it("caps questions on their way upstream and answers the rest SERVFAIL at once", async () => {
    const u = await upstream();
    u.behaviour = "stall";
    const { rt } = await start(u.port);
    let servfails = 0;
    const total = MAX_INFLIGHT + 200;
    for (let i = 0; i < total; i++) {
      rt.resolver.handle(buildQuery({ name: `q${i}.flood.example` }), client, (out) => {
        if ((out[3]! & 0x0f) === RCODE.SERVFAIL) servfails++;
      });
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(rt.resolver.inflightCount()).toBeLessThanOrEqual(MAX_INFLIGHT);
    expect(rt.resolver.stats.overloaded).toBe(200);
    expect(servfails).toBeGreaterThanOrEqual(200);
  }, 30_000);
});
