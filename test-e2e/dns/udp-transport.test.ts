// Which socket answers UDP: routerd-dns-resolver in a namespace, queried by kdig from another, once with the
// native batch helper (recvmmsg/sendmmsg, the default on Linux) and once forced onto node:dgram
// (ROUTERD_DNS_UDP=dgram, what FreeBSD or a build without a compiler gets). Both answer local names, misses
// forwarded to a real unbound (answered later, outside the batch) and truncated answers (TC, then TCP);
// the status says which transport serves, and only the native one counts batches.
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { connectDaemon, daemonSocketPath } from "@routerd/rpc";
import { getStats } from "@routerd/rpc/dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Lab, sh } from "../lib/lab.js";
import { kdig, startResolver, startUnbound } from "./peers.js";

const lab = new Lab("dnsu", "rdnu");
let up: string;
let rtr: string;
let lan: string;

const UPSTREAM = "10.54.0.2";
const NATIVE = "192.168.54.1";
const DGRAM = "192.168.54.3";

function config(address: string): object {
  return {
    listen: [{ name: "lan", addresses: [address], port: 53, sources: ["192.168.54.0/24"] }],
    cache: { maxEntries: 1000 },
    zones: [
      {
        name: "lan",
        zone: "lan.",
        records: [
          { name: "router.lan.", type: "A", data: address },
          ...Array.from({ length: 60 }, (_, i) => ({ name: "big.lan.", type: "A", data: `10.0.0.${i + 1}` })),
        ],
      },
    ],
    forwarders: [{ name: "default", match: ["."], upstreams: ["u"] }],
    upstreams: [{ name: "u", protocol: "udp", address: UPSTREAM }],
  };
}

interface Started {
  child: ChildProcess;
  runDir: string;
}
let native: Started;
let dgram: Started;

beforeAll(async () => {
  up = lab.netns("up");
  rtr = lab.netns("rtr");
  lan = lab.netns("lan");
  lab.veth(up, "u0", rtr, "r0");
  lab.veth(rtr, "r1", lan, "l0");
  sh(["ip", "-n", up, "addr", "add", `${UPSTREAM}/24`, "dev", "u0"]);
  sh(["ip", "-n", rtr, "addr", "add", "10.54.0.1/24", "dev", "r0"]);
  sh(["ip", "-n", rtr, "addr", "add", `${NATIVE}/24`, "dev", "r1"]);
  sh(["ip", "-n", rtr, "addr", "add", `${DGRAM}/24`, "dev", "r1"]);
  sh(["ip", "-n", lan, "addr", "add", "192.168.54.2/24", "dev", "l0"]);
  writeFileSync(lab.path("example.zone"), ["$ORIGIN example.test.", "$TTL 300", "@ IN SOA ns.example.test. admin.example.test. 1 3600 600 86400 60", "@ IN NS ns.example.test.", "ns IN A 10.54.0.2", "www IN A 192.0.2.80", ""].join("\n"));
  await startUnbound(lab, up, "u", { addresses: [UPSTREAM], zones: [{ name: "example.test.", file: lab.path("example.zone") }] });
  native = await startResolver(lab, rtr, config(NATIVE), { instance: "native" });
  dgram = await startResolver(lab, rtr, config(DGRAM), { instance: "dgram", env: { ROUTERD_DNS_UDP: "dgram" } });
}, 120_000);

afterAll(async () => {
  await lab.cleanup();
});

async function transportOf(s: Started, instance: string): Promise<{ udpTransport?: string; udpTransportNote?: string }> {
  const conn = await connectDaemon(daemonSocketPath(s.runDir, "dns-resolver", instance));
  try {
    const r = (await conn.getStatus()).resources.find((x) => x.name === `DNSResolver/${instance}`);
    return JSON.parse(r?.detailsJson || "{}") as { udpTransport?: string; udpTransportNote?: string };
  } finally {
    conn.close();
  }
}

function answersEverything(server: string): void {
  const ask = (...args: string[]) => kdig(lab, lan, [`@${server}`, "+timeout=3", "+retry=1", ...args]);
  expect(ask("router.lan", "A").answer.map((r) => r.data)).toEqual([server]);
  // A miss: forwarded, answered when unbound replies (after the batch it came in was handed back).
  const miss = ask("www.example.test", "A");
  expect([miss.status, miss.answer.map((r) => r.data)]).toEqual(["NOERROR", ["192.0.2.80"]]);
  expect(ask("nothing.example.test", "A").status).toBe("NXDOMAIN");
  // 60 records without EDNS: TC over UDP, kdig retries over TCP and gets them all.
  const big = ask("+noedns", "big.lan", "A");
  expect(big.answer.length).toBe(60);
  const tc = ask("+noedns", "+ignore", "big.lan", "A");
  expect(tc.flags).toContain("tc");
}

describe("UDP transport", () => {
  it("answers through the native batch helper by default, and says so", async () => {
    const before = (await getStats(daemonSocketPath(native.runDir, "dns-resolver", "native"))).counters;
    answersEverything(NATIVE);
    const after = (await getStats(daemonSocketPath(native.runDir, "dns-resolver", "native"))).counters;
    expect(await transportOf(native, "native")).toMatchObject({ udpTransport: "native", udpTransportNote: "recvmmsg/sendmmsg" });
    const queries = after.udpQueries! - (before.udpQueries ?? 0);
    expect(queries).toBeGreaterThanOrEqual(5);
    // Every UDP query came in through a batch of the helper.
    expect(after.udpBatches! - (before.udpBatches ?? 0)).toBeGreaterThanOrEqual(1);
    expect(after.udpBatches! - (before.udpBatches ?? 0)).toBeLessThanOrEqual(queries);
  });

  it("falls back to node:dgram when told to (as on FreeBSD or without the helper), reports why, and answers alike", async () => {
    answersEverything(DGRAM);
    expect(await transportOf(dgram, "dgram")).toMatchObject({ udpTransport: "dgram", udpTransportNote: "ROUTERD_DNS_UDP=dgram" });
    const counters = (await getStats(daemonSocketPath(dgram.runDir, "dns-resolver", "dgram"))).counters;
    expect(counters.udpQueries).toBeGreaterThanOrEqual(5);
    expect(counters.udpBatches ?? 0).toBe(0);
  });
});
