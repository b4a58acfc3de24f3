#!/usr/bin/env node
// The "one netlink batch" floor (row nlbatch of run.mjs): N routes written with routerd-bgp's own netlink
// writer (the built addon, chunks of 2,000 as routerd-bgp sends them), then deleted the same way. Run in the
// router namespace: node netlink-batch.mjs N NEXTHOP. Prints {"fibMs", "withdrawMs", "sends", "cpuS" (the
// whole process: node's start, encoding, the kernel's work), "loadCpuS" (after the writes), "peakRssMB"}.
import pino from "pino";
import { prefixAt } from "./lab.mjs";

const dist = new URL("../../apps/routerd-bgp/dist/fib/", import.meta.url);
const { loadNetlinkRoute } = await import(new URL("native.js", dist).href);
const { NetlinkWriter } = await import(new URL("netlink-writer.js", dist).href);

const [n, via] = [Number(process.argv[2]), process.argv[3]];
const loaded = loadNetlinkRoute();
if (loaded.addon === undefined) throw new Error(`no netlink addon: ${loaded.reason}`);
const writer = new NetlinkWriter(loaded.addon, pino({ level: "silent" }));
const target = { protocol: 219, table: 254, metric: 20 };
const CHUNK = 2000;

async function pass(write) {
  const start = performance.now();
  const pending = [];
  for (let s = 0; s < n; s += CHUNK) {
    const chunk = writer.chunk(target);
    for (let i = s; i < Math.min(n, s + CHUNK); i++) write(chunk, prefixAt(i));
    pending.push(chunk.submit());
  }
  const failed = (await Promise.all(pending)).reduce((k, r) => k + r.failed.size, 0);
  if (failed > 0) throw new Error(`${failed} writes refused`);
  return performance.now() - start;
}

const cpuS = () => {
  const c = process.cpuUsage();
  return +((c.user + c.system) / 1e6).toFixed(2);
};
const fibMs = await pass((c, p) => c.replace(p, via));
const loadCpuS = cpuS();
const withdrawMs = await pass((c, p) => c.delete(p, 20));
writer.close();
const peakRssMB = +(process.resourceUsage().maxRSS / 1024).toFixed(1);
process.stdout.write(JSON.stringify({ fibMs, withdrawMs, sends: writer.sends, cpuS: cpuS(), loadCpuS, peakRssMB }) + "\n");
