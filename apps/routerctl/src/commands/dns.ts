// routerctl dns stats | flush [NAME] | lookup NAME [TYPE]: routerd-dns-resolver's own service.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Command, Io, OptionSpec, OptionValues } from "@routerd/cli";
import { daemonSocketPath } from "@routerd/rpc";
import { flushCache, getStats, lookupName, type GetStatsResponse, type LookupResponse } from "@routerd/rpc/dns";
import { SOCKET_OPTIONS } from "./common.js";

const DAEMON = "dns-resolver";

const OPTIONS: Record<string, OptionSpec> = {
  ...SOCKET_OPTIONS,
  resolver: { type: "string", valueName: "NAME", description: "the DNSResolver (default: the only one running)" },
};

/** The resolver to talk to: --resolver, or the only one running. */
function resolverSocket(runDir: string, name: string | undefined): string {
  if (name) return daemonSocketPath(runDir, DAEMON, name);
  let socks: string[] = [];
  try {
    socks = readdirSync(join(runDir, DAEMON)).filter((f) => f.endsWith(".sock"));
  } catch {
    // none running
  }
  if (socks.length === 1) return join(runDir, DAEMON, socks[0]!);
  throw new Error(
    socks.length === 0
      ? `no DNS resolver is running (no socket under ${join(runDir, DAEMON)})`
      : `several DNS resolvers run (${socks.map((s) => s.slice(0, -5)).join(", ")}): pick one with --resolver NAME`,
  );
}

async function withResolver(v: OptionValues, io: Io, fn: (socket: string) => Promise<void>): Promise<number> {
  let socket: string;
  try {
    socket = resolverSocket(String(v["run-dir"]), v.resolver ? String(v.resolver) : undefined);
  } catch (err) {
    io.err(`routerctl: ${(err as Error).message}`);
    return 1;
  }
  try {
    await fn(socket);
    return 0;
  } catch (err) {
    io.err(`routerctl: ${socket}: ${(err as Error).message}`);
    return 1;
  }
}

const pct = (a: number, b: number) => (b === 0 ? "0.0" : ((100 * a) / b).toFixed(1));

export function statsText(s: GetStatsResponse): string {
  const n = (k: string) => s.counters[k] ?? 0;
  return [
    `queries ${n("queries")} (udp ${n("udpQueries")}, tcp ${n("tcpQueries")})  cache hits ${n("cacheHits")} (${pct(n("cacheHits"), n("queries"))} %)  misses ${n("cacheMisses")}  local ${n("localAnswers")}  stale ${n("staleAnswers")}`,
    `coalesced ${n("coalesced")}  prefetches ${n("prefetches")}  NXDOMAIN ${n("nxdomain")}  SERVFAIL ${n("servfail")}  REFUSED ${n("refused")}  FORMERR ${n("formerr")}  truncated ${n("truncated")}  dropped ${n("dropped")}`,
    `dnssec secure ${n("dnssecSecure")} bogus ${n("dnssecBogus")}  mismatched upstream replies ${n("mismatchedReplies")}  in flight ${n("inflight")}`,
    `cache ${s.cacheEntries} entries, ${Math.round(s.cacheBytes / 1024)} KiB, ${s.cacheEvictions} evicted  tcp connections ${s.tcpConnections}  rss ${Math.round(n("rssKiB") / 1024)} MiB`,
    "listeners:",
    ...s.listeners.map((l) => `  ${l.name.padEnd(12)} ${`${l.address.includes(":") ? `[${l.address}]` : l.address}:${l.port}`.padEnd(26)} ${l.bound ? "bound" : `NOT BOUND: ${l.error}`}`),
    "zones:",
    ...s.zones.map((z) => `  ${z.name.padEnd(12)} ${z.zone.padEnd(26)} ${z.records} records, ${z.dhcpNames} from DHCP`),
    "upstreams:",
    `  ${"NAME".padEnd(12)} ${"STATE".padEnd(5)} ${"SRTT".padStart(8)} ${"QUERIES".padStart(8)} ${"FAILED".padStart(7)} ${"TIMEOUT".padStart(7)} ${"MEAN".padStart(8)} ${"MAX".padStart(8)}  URL`,
    ...s.upstreams.map(
      (u) =>
        `  ${u.name.padEnd(12)} ${u.state.padEnd(5)} ${`${u.srttMs.toFixed(1)}ms`.padStart(8)} ${String(u.queries).padStart(8)} ${String(u.failures).padStart(7)} ${String(u.timeouts).padStart(7)} ${`${u.meanLatencyMs.toFixed(1)}ms`.padStart(8)} ${`${u.maxLatencyMs.toFixed(1)}ms`.padStart(8)}  ${u.url}${u.lastError && u.state !== "up" ? `  (${u.lastError})` : ""}`,
    ),
  ].join("\n");
}

export function lookupText(r: LookupResponse): string {
  const flags = [r.authoritative ? "aa" : "", r.authenticated ? "ad" : ""].filter(Boolean).join(" ");
  const via = r.source === "upstream" ? `upstream ${r.upstream}` : r.source;
  const row = (rec: { name: string; ttl: number; type: string; data: string }) => `${rec.name}\t${rec.ttl}\tIN\t${rec.type}\t${rec.data}`;
  return [
    `;; ${r.rcode}  from ${via}${flags ? `  flags: ${flags}` : ""}${r.dnssec ? `  dnssec: ${r.dnssec}` : ""}  ${r.ms} ms`,
    ...r.answers.map(row),
    ...(r.authorities.length ? [";; authority:", ...r.authorities.map(row)] : []),
  ].join("\n");
}

const stats: Command = {
  name: "stats",
  summary: "counters, cache size, listeners, zones and upstream health and latency",
  usage: "stats [--resolver NAME] [--json] [--run-dir DIR]",
  options: OPTIONS,
  examples: [{ command: "routerctl dns stats", description: "hit rate, upstream states and round-trip times" }],
  run: (v, io) =>
    withResolver(v, io, async (socket) => {
      const s = await getStats(socket);
      io.out(v.json ? JSON.stringify(s, null, 2) : statsText(s));
    }),
};

const flush: Command = {
  name: "flush",
  summary: "drop cached answers: all of them, or those for one name",
  usage: "flush [NAME] [--resolver NAME] [--json] [--run-dir DIR]",
  options: OPTIONS,
  positionals: [{ name: "NAME", description: "a domain name (every type); none: the whole cache", optional: true }],
  examples: [
    { command: "routerctl dns flush example.com", description: "forget example.com's cached answers" },
    { command: "routerctl dns flush", description: "empty the cache" },
  ],
  run: (v, io, positionals) =>
    withResolver(v, io, async (socket) => {
      const removed = await flushCache(socket, positionals[0] ?? "");
      io.out(v.json ? JSON.stringify({ removed }) : `${removed} cached answer(s) removed`);
    }),
};

const lookup: Command = {
  name: "lookup",
  summary: "resolve a name through the resolver, as a client's query would be",
  usage: "lookup NAME [TYPE] [--dnssec] [--resolver NAME] [--json] [--run-dir DIR]",
  options: { ...OPTIONS, dnssec: { type: "boolean", description: "ask with DO set (DNSSEC records, AD when validated)" } },
  positionals: [
    { name: "NAME", description: "the domain name to look up" },
    { name: "TYPE", description: "record type (default A)", optional: true },
  ],
  examples: [
    { command: "routerctl dns lookup router.lan", description: "a local name: answered with authority from its DNSZone" },
    { command: "routerctl dns lookup example.com AAAA --dnssec", description: "forwarded, validated when the forwarder says so" },
  ],
  run: (v, io, positionals) => {
    const [name, type] = positionals;
    if (!name) {
      io.err("routerctl: dns lookup needs a NAME");
      return Promise.resolve(1);
    }
    return withResolver(v, io, async (socket) => {
      const r = await lookupName(socket, name, type ?? "A", v.dnssec === true);
      io.out(v.json ? JSON.stringify(r, null, 2) : lookupText(r));
    });
  },
};

export const dnsCommand: Command = {
  name: "dns",
  summary: "the DNS resolver: counters and upstream health, cache flush, lookups through it",
  usage: "dns (stats | flush [NAME] | lookup NAME [TYPE]) [options]",
  description: "Talks to routerd-dns-resolver over <run-dir>/dns-resolver/<DNSResolver>.sock.",
  options: OPTIONS,
  examples: [
    { command: "routerctl dns stats", description: "counters, cache, listeners, zones, upstream health" },
    { command: "routerctl dns lookup nas.lan", description: "a name through the resolver, with where the answer came from" },
  ],
  subcommands: [stats, flush, lookup],
};
