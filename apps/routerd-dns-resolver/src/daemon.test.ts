// The daemon in-process on a real Unix socket (temp dirs): status resources, the Resolver service (stats,
// lookup, flush), reload keeping sockets and cache, upstream health events.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectDaemon } from "@routerd/rpc";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { flushCache, getStats, lookupName } from "@routerd/rpc/dns";
import { startDnsResolverDaemon, type DnsResolverDaemon } from "./daemon.js";
import { dnsResolverSocketPath } from "./names.js";
import { ask } from "./test-support/client.js";
import { FakeUpstream } from "./test-support/fake-upstream.js";

let dir: string;
let running: DnsResolverDaemon[] = [];
let ups: FakeUpstream[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "rd-dns-daemon-"));
});

afterEach(async () => {
  for (const d of running.splice(0)) await d.daemon.stop("test done");
  for (const u of ups.splice(0)) u.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(upstreamPort: number, extraRecord?: string): string {
  const path = join(dir, "config.json");
  writeFileSync(
    path,
    JSON.stringify({
      listen: [{ name: "lo", addresses: ["127.0.0.1"], port: 0, sources: ["127.0.0.0/8"] }],
      zones: [{ name: "lan", zone: "lan.", records: [{ name: "router.lan.", type: "A", data: "192.168.1.1" }, ...(extraRecord ? [{ name: extraRecord, type: "A", data: "192.168.1.2" }] : [])] }],
      forwarders: [{ name: "default", match: ["."], upstreams: ["isp"], healthcheck: { intervalMs: 200, timeoutMs: 500, failThreshold: 2, passThreshold: 1 } }],
      upstreams: [{ name: "isp", protocol: "udp", address: "127.0.0.1", port: upstreamPort }],
    }),
  );
  return path;
}

async function start(configPath: string): Promise<DnsResolverDaemon> {
  const d = await startDnsResolverDaemon({ configPath, instance: "lan", runDir: join(dir, "run"), stateDir: join(dir, "state"), logger: pino({ level: "silent" }), handleSignals: false });
  running.push(d);
  return d;
}

describe("routerd-dns-resolver daemon", () => {
  it("serves status, stats, lookups and flushes over its socket", async () => {
    const u = await new FakeUpstream().start();
    ups.push(u);
    u.add({ name: "www.example.", type: "A", data: "192.0.2.80" });
    const d = await start(writeConfig(u.port));
    const socket = dnsResolverSocketPath("lan", join(dir, "run"));

    const local = await lookupName(socket, "router.lan");
    expect(local).toMatchObject({ rcode: "NOERROR", source: "local", authoritative: true });
    expect(local.answers.map((a) => a.data)).toEqual(["192.168.1.1"]);
    const fwd = await lookupName(socket, "www.example", "A");
    expect(fwd).toMatchObject({ source: "upstream", upstream: "isp" });
    expect((await lookupName(socket, "www.example")).source).toBe("cache");
    await expect(lookupName(socket, "x", "BOGUS")).rejects.toThrow(/unknown record type/);

    const stats = await getStats(socket);
    expect(stats.counters.cacheHits).toBe(1);
    expect(stats.cacheEntries).toBe(1);
    expect(stats.listeners[0]).toMatchObject({ name: "lo", address: "127.0.0.1", bound: true });
    expect(stats.upstreams[0]).toMatchObject({ name: "isp", state: "up", protocol: "udp" });
    expect(stats.zones[0]).toMatchObject({ name: "lan", zone: "lan.", records: 1 });

    expect(await flushCache(socket, "www.example")).toBe(1);
    expect((await getStats(socket)).cacheEntries).toBe(0);

    const conn = await connectDaemon(socket);
    try {
      const status = await conn.getStatus();
      const byName = new Map(status.resources.map((r) => [r.name, r]));
      expect(byName.get("DNSResolver/lan")?.phase).toBe("Serving");
      expect(byName.get("DNSUpstream/isp")?.phase).toBe("Up");
      expect(byName.get("DNSZone/lan")?.phase).toBe("Ready");
      expect(byName.get("DNSForwarder/default")?.phase).toBe("Ready");
      expect(JSON.parse(status.detailsJson).counters.queries).toBeGreaterThan(0);
    } finally {
      conn.close();
    }
    expect(d.runtime.listeners.states()[0]!.bound).toBe(true);
  });

  it("reloads without closing its socket or dropping the cache, and reports upstream health", async () => {
    const u = await new FakeUpstream().start();
    ups.push(u);
    u.add({ name: "www.example.", type: "A", data: "192.0.2.80" });
    const path = writeConfig(u.port);
    const d = await start(path);
    const port = d.runtime.listeners.states()[0]!.port;
    await ask(port, { name: "www.example" });
    writeConfig(u.port, "nas.lan.");
    const conn = await connectDaemon(dnsResolverSocketPath("lan", join(dir, "run")));
    try {
      const r = await conn.command("reload", {});
      expect(r.ok).toBe(true);
      expect(d.runtime.listeners.states()[0]!.port).toBe(port);
      expect((await ask(port, { name: "nas.lan" })).answers).toHaveLength(1);
      await ask(port, { name: "www.example" });
      expect(u.seen.filter((s) => s.startsWith("www"))).toHaveLength(1);

      const DOWN = "dns.upstream.down DNSUpstream/isp";
      const UP = "dns.upstream.up DNSUpstream/isp";
      const events: string[] = [];
      const abort = new AbortController();
      // afterSeq 0 replays what was retained: a down reported before the watch was set up is not missed.
      const watching = (async () => {
        for await (const e of conn.watchEvents({ afterSeq: 0, topicPrefixes: ["dns.upstream."], signal: abort.signal })) {
          events.push(`${e.topic} ${e.resource}`);
        }
      })().catch(() => undefined);
      // The upstream stalls until it is reported down (a loaded machine runs the probes late), then answers.
      const until = async (done: () => boolean): Promise<void> => {
        for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
      };
      u.behaviour = "stall";
      await until(() => events.includes(DOWN));
      u.behaviour = "answer";
      await until(() => events.lastIndexOf(UP) > events.indexOf(DOWN));
      abort.abort();
      await watching;
      expect(events.slice(events.indexOf(DOWN))).toEqual([DOWN, UP]);
    } finally {
      conn.close();
    }
  }, 30_000); // a daemon, a reload and two health transitions: ~5 s, more on a loaded machine
});
