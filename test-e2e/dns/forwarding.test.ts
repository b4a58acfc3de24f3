// routerd-dns-resolver between a LAN client (kdig) and real upstreams: two unbound servers in an "up"
// namespace serving test zones over UDP/TCP, one also over DNS over TLS and DNS over HTTPS with a test CA.
// Local records and reverse names, NXDOMAIN/NODATA with SOA, suffix routing, truncation and TCP, DoT/DoH
// (a wrong tlsName is refused), REFUSED outside sources, reload while serving, failover when an upstream
// dies, negative caching and SERVFAIL within 2 s once every upstream is gone.
import { execFileSync, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { readFileSync, writeFileSync } from "node:fs";
import { connectDaemon, daemonSocketPath } from "@routerd/rpc";
import { getStats } from "@routerd/rpc/dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Lab, sh, terminate } from "../lib/lab.js";
import { until } from "../lib/serve.js";
import { REPO } from "../lib/netns.js";
import { kdig, makeCa, startResolver, startUnbound, type TestCa } from "./peers.js";

const lab = new Lab("dnsf", "rdns");
let up: string;
let rtr: string;
let lan: string;
let ca: TestCa;
let unboundA: ChildProcess;
let unboundB: ChildProcess;
let resolver: { child: ChildProcess; configPath: string; runDir: string; log: string[] };

const ROUTER = "192.168.53.1";
const ask = (...args: string[]) => {
  const r = kdig(lab, lan, [`@${ROUTER}`, "+timeout=3", "+retry=0", ...args]);
  if (r.status === "TIMEOUT" && process.env.ROUTERD_DNS_DEBUG) {
    const snap = execFileSync(process.execPath, [join(REPO, "apps/routerctl/bin/routerctl.js"), "dns", "stats", "--json", "--run-dir", resolver.runDir], { encoding: "utf8" });
    process.stderr.write(`TIMEOUT ${args.join(" ")}: ${snap}\n`);
  }
  return r;
};

function exampleZone(variant: string): string {
  const big = Array.from({ length: 100 }, (_, i) => `big IN A 10.99.${i >> 8}.${i & 255}`);
  return [
    "$ORIGIN example.test.",
    "$TTL 300",
    "@ IN SOA ns.example.test. admin.example.test. 1 3600 600 86400 60",
    "@ IN NS ns.example.test.",
    "ns IN A 10.53.0.2",
    "www IN A 192.0.2.80",
    "www IN AAAA 2001:db8::80",
    "alias IN CNAME www.example.test.",
    "www.tls IN A 192.0.2.81",
    "www.https IN A 192.0.2.82",
    "www.bad IN A 192.0.2.83",
    `who IN TXT "${variant}"`,
    ...big,
    "",
  ].join("\n");
}

const corpZone = (addr: string) => ["$ORIGIN corp.test.", "$TTL 300", "@ IN SOA ns.corp.test. admin.corp.test. 1 3600 600 86400 60", "@ IN NS ns.corp.test.", "ns IN A 10.53.0.3", `x IN A ${addr}`, ""].join("\n");

function resolverConfig(extraRecords: object[] = []): object {
  return {
    listen: [{ name: "lan", addresses: [ROUTER, "127.0.0.1"], port: 53, sources: ["192.168.53.0/24", "127.0.0.0/8"] }],
    cache: { maxEntries: 10_000, minTTL: 0, maxTTL: 86_400, negativeTTL: 3_600 },
    queryLog: { enabled: true, path: lab.path("queries.jsonl") },
    zones: [
      {
        name: "lan",
        zone: "lan.",
        ttl: 300,
        records: [
          { name: "router.lan.", type: "A", data: ROUTER },
          { name: "router.lan.", type: "AAAA", data: "fd53::1" },
          { name: "nas.lan.", type: "A", data: "192.168.53.10" },
          { name: "files.lan.", type: "CNAME", data: "nas.lan." },
          ...Array.from({ length: 60 }, (_, i) => ({ name: "big.lan.", type: "A", data: `10.0.0.${i + 1}` })),
          ...extraRecords,
        ],
        reverseZones: ["53.168.192.in-addr.arpa."],
      },
    ],
    forwarders: [
      { name: "default", match: ["."], upstreams: ["a", "b"], healthcheck: { intervalMs: 500, timeoutMs: 300, failThreshold: 2, passThreshold: 1 } },
      { name: "corp", match: ["corp.test."], upstreams: ["b"] },
      { name: "tls", match: ["tls.example.test."], upstreams: ["a-dot"] },
      { name: "https", match: ["https.example.test."], upstreams: ["a-doh"] },
      { name: "bad", match: ["bad.example.test."], upstreams: ["a-badtls"] },
    ],
    upstreams: [
      { name: "a", protocol: "udp", address: "10.53.0.2" },
      { name: "b", protocol: "udp", address: "10.53.0.3" },
      { name: "a-dot", protocol: "dot", address: "10.53.0.2", tlsName: "dns.test" },
      { name: "a-doh", protocol: "doh", address: "10.53.0.2", tlsName: "dns.test", path: "/dns-query" },
      { name: "a-badtls", protocol: "dot", address: "10.53.0.2", tlsName: "wrong.test" },
    ],
  };
}

async function startA(): Promise<ChildProcess> {
  return startUnbound(lab, up, "a", {
    addresses: ["10.53.0.2"],
    zones: [
      { name: "example.test.", file: lab.path("example-a.zone") },
      { name: "corp.test.", file: lab.path("corp-a.zone") },
    ],
    tls: ca,
    encrypted: true,
  });
}

async function startB(): Promise<ChildProcess> {
  return startUnbound(lab, up, "b", {
    addresses: ["10.53.0.3"],
    zones: [
      { name: "example.test.", file: lab.path("example-b.zone") },
      { name: "corp.test.", file: lab.path("corp-b.zone") },
    ],
  });
}

beforeAll(async () => {
  up = lab.netns("up");
  rtr = lab.netns("rtr");
  lan = lab.netns("lan");
  lab.veth(up, "u0", rtr, "r0");
  lab.veth(rtr, "r1", lan, "l0");
  sh(["ip", "-n", up, "addr", "add", "10.53.0.2/24", "dev", "u0"]);
  sh(["ip", "-n", up, "addr", "add", "10.53.0.3/24", "dev", "u0"]);
  sh(["ip", "-n", rtr, "addr", "add", "10.53.0.1/24", "dev", "r0"]);
  sh(["ip", "-n", rtr, "addr", "add", `${ROUTER}/24`, "dev", "r1"]);
  sh(["ip", "-n", lan, "addr", "add", "192.168.53.2/24", "dev", "l0"]);
  ca = makeCa(lab.dir, ["dns.test"], ["10.53.0.2"]);
  writeFileSync(lab.path("example-a.zone"), exampleZone("a"));
  writeFileSync(lab.path("example-b.zone"), exampleZone("b"));
  writeFileSync(lab.path("corp-a.zone"), corpZone("10.0.0.1"));
  writeFileSync(lab.path("corp-b.zone"), corpZone("10.0.0.2"));
  unboundA = await startA();
  unboundB = await startB();
  resolver = await startResolver(lab, rtr, resolverConfig(), { env: { NODE_EXTRA_CA_CERTS: ca.ca } });
}, 120_000);

afterAll(async () => {
  if (process.env.ROUTERD_DNS_DEBUG) process.stderr.write(`resolver log:\n${resolver?.log.join("")}\nqueries:\n${readFileSync(lab.path("queries.jsonl"), "utf8").slice(-4000)}\n`);
  await lab.cleanup();
});

const socket = () => daemonSocketPath(resolver.runDir, "dns-resolver", "lan");

describe("routerd-dns-resolver with real upstreams", () => {
  it("answers local records, reverse names and CNAME chains with authority", () => {
    const a = ask("router.lan", "A");
    expect(a.status).toBe("NOERROR");
    expect(a.flags).toContain("aa");
    expect(a.answer.map((r) => r.data)).toEqual([ROUTER]);
    expect(ask("1.53.168.192.in-addr.arpa", "PTR").answer.map((r) => r.data)).toEqual(["router.lan."]);
    expect(ask("10.53.168.192.in-addr.arpa", "PTR").answer.map((r) => r.data)).toEqual(["nas.lan."]);
    expect(ask("files.lan", "A").answer.map((r) => [r.type, r.data])).toEqual([
      ["CNAME", "nas.lan."],
      ["A", "192.168.53.10"],
    ]);
  });

  it("tells NXDOMAIN from NODATA, locally and forwarded, with the SOA", () => {
    for (const [name, type, status] of [
      ["nope.lan", "A", "NXDOMAIN"],
      ["router.lan", "MX", "NOERROR"],
      ["nope.example.test", "A", "NXDOMAIN"],
      ["www.example.test", "MX", "NOERROR"],
    ] as const) {
      const r = ask(name, type);
      expect([name, r.status, r.answer.length]).toEqual([name, status, 0]);
      expect(r.authority.map((x) => x.type)).toEqual(["SOA"]);
    }
  });

  it("forwards by the longest matching suffix", () => {
    expect(ask("www.example.test", "A").answer.map((r) => r.data)).toEqual(["192.0.2.80"]);
    expect(ask("alias.example.test", "AAAA").answer.map((r) => r.type)).toEqual(["CNAME", "AAAA"]);
    // corp.test goes to b only; a has a different answer for the same name.
    expect(ask("x.corp.test", "A").answer.map((r) => r.data)).toEqual(["10.0.0.2"]);
  });

  it("truncates large UDP answers (TC) and answers them in full over TCP, local and forwarded", () => {
    const udp = ask("big.lan", "A", "+noedns", "+ignore");
    expect(udp.flags).toContain("tc");
    expect(udp.answer).toHaveLength(0);
    expect(ask("big.lan", "A", "+tcp").answer).toHaveLength(60);
    // Upstream: 100 A records do not fit our 1232-byte EDNS size, so the resolver retries over TCP itself.
    expect(ask("big.example.test", "A", "+tcp").answer).toHaveLength(100);
  });

  it("uses DoT and DoH upstreams, and refuses a certificate that does not carry the tlsName", async () => {
    expect(ask("www.tls.example.test", "A").answer.map((r) => r.data)).toEqual(["192.0.2.81"]);
    expect(ask("www.https.example.test", "A").answer.map((r) => r.data)).toEqual(["192.0.2.82"]);
    const bad = ask("www.bad.example.test", "A");
    expect(bad.status).toBe("SERVFAIL");
    expect(bad.answer).toHaveLength(0);
    const ups = new Map((await getStats(socket())).upstreams.map((u) => [u.name, u]));
    expect(ups.get("a-dot")).toMatchObject({ state: "up", failures: 0 });
    expect(ups.get("a-doh")).toMatchObject({ state: "up", failures: 0 });
    expect(ups.get("a-badtls")!.lastError).toMatch(/wrong\.test/);
  });

  it("refuses clients outside the listener's sources", () => {
    const r = kdig(lab, rtr, [`@${ROUTER}`, "-b", "10.53.0.1", "router.lan", "+edns", "+timeout=2", "+retry=0"]);
    expect(r.status).toBe("REFUSED");
    expect(r.ede).toBe(18);
  });

  it("reloads on SIGHUP while serving, keeping its cache", async () => {
    expect(ask("www.example.test", "AAAA").status).toBe("NOERROR");
    const before = await getStats(socket());
    writeFileSync(resolver.configPath, JSON.stringify(resolverConfig([{ name: "printer.lan.", type: "A", data: "192.168.53.20" }])));
    resolver.child.kill("SIGHUP");
    // Queries keep being answered across the reload.
    for (let i = 0; i < 10; i++) expect(ask("router.lan", "A").status).toBe("NOERROR");
    await until("printer.lan after reload", () => ask("printer.lan", "A").answer[0]?.data === "192.168.53.20", 10_000, 100);
    const after = await getStats(socket());
    expect(after.cacheEntries).toBeGreaterThanOrEqual(before.cacheEntries);
    expect(after.startedAt).toEqual(before.startedAt);
    expect(ask("www.example.test", "AAAA").answer.map((r) => r.data)).toEqual(["2001:db8::80"]);
  });

  it("fails over when an upstream dies and reports it down", async () => {
    await terminate(unboundA);
    for (let i = 0; i < 4; i++) expect(ask(`gone${i}.example.test`, "A").status).toBe("NXDOMAIN");
    expect(ask("never-asked.example.test", "A").status).toBe("NXDOMAIN");
    const conn = await connectDaemon(socket());
    try {
      await until("upstream a down", async () => (await conn.getStatus()).resources.find((r) => r.name === "DNSUpstream/a")?.phase === "Down", 10_000, 200);
      const events: string[] = [];
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 500);
      for await (const e of conn.watchEvents({ afterSeq: 0, topicPrefixes: ["dns.upstream."], signal: ac.signal })) events.push(`${e.topic} ${e.resource}`);
      expect(events).toContain("dns.upstream.down DNSUpstream/a");
    } finally {
      conn.close();
    }
  });

  it("answers negative answers from its cache, and SERVFAIL within 2 s once every upstream is gone", async () => {
    const first = ask("negative.example.test", "A");
    expect(first.status).toBe("NXDOMAIN");
    await terminate(unboundB);
    const cached = ask("negative.example.test", "A");
    expect(cached.status).toBe("NXDOMAIN");
    expect(cached.authority[0]!.ttl).toBeLessThanOrEqual(60);
    const failed = ask("uncached.example.test", "A");
    expect(failed.status).toBe("SERVFAIL");
    expect(failed.ms).toBeLessThan(2000);
    // Local names do not depend on upstreams.
    expect(ask("router.lan", "A").status).toBe("NOERROR");
    unboundA = await startA();
    unboundB = await startB();
    await until("upstreams back", () => ask("back.example.test", "A").status === "NXDOMAIN", 15_000, 300);
  });
});
