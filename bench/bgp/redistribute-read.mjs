#!/usr/bin/env node
// What routerd-bgp's redistribution re-read (every 5 s) costs when the main table holds a full BGP feed:
// the old whole-table read (`ip -j route show table main`, both families, parsed as JSON) against the reads
// it makes now (one per redistributed protocol: `... proto kernel|boot|static`, filtered by the kernel).
// A namespace of its own holds N routes of protocol 219 plus a few connected and static ones.
// Usage (root): node bench/bgp/redistribute-read.mjs [--n 100000] [--runs 5]
import { execFileSync, spawnSync } from "node:child_process";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { n: { type: "string", default: "100000" }, runs: { type: "string", default: "5" }, help: { type: "boolean" } } });
if (values.help) {
  console.log("node bench/bgp/redistribute-read.mjs [--n 100000] [--runs 5]: CPU and time of the redistribution re-read, whole table vs per protocol");
  process.exit(0);
}
const n = Number(values.n);
const runs = Number(values.runs);
const ns = `rdbench-redis-${process.pid}`;
const ip = (args, input) => execFileSync("ip", ["-n", ns, ...args], { input, stdio: ["pipe", "pipe", "inherit"] });

/** One read as routerd-bgp makes it: `ip -j ...` in a child, its JSON parsed here. CPU = child + this process. */
function read(argsList) {
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  let childCpu = 0;
  let routes = 0;
  for (const args of argsList) {
    const r = spawnSync("/usr/bin/time", ["-f", "%U %S", "ip", "-n", ns, "-j", ...args], { maxBuffer: 1 << 30 });
    const [u, s] = r.stderr.toString().trim().split("\n").pop().split(" ").map(Number);
    childCpu += u + s;
    routes += JSON.parse(r.stdout.toString() || "[]").length;
  }
  const own = process.cpuUsage(cpu0);
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, cpu: childCpu + (own.user + own.system) / 1e6, routes };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const WHOLE = [["-4", "route", "show", "table", "main"], ["-6", "route", "show", "table", "main"]];
const PER_PROTOCOL = ["kernel", "boot", "static"].flatMap((p) => [["-4", "route", "show", "table", "main", "proto", p], ["-6", "route", "show", "table", "main", "proto", p]]);

execFileSync("ip", ["netns", "add", ns]);
try {
  ip(["link", "add", "r0", "type", "veth", "peer", "name", "r1"]);
  for (const d of ["r0", "r1"]) ip(["link", "set", d, "up"]);
  ip(["addr", "add", "10.0.0.1/24", "dev", "r0"]);
  ip(["addr", "add", "2001:db8:77::1/64", "dev", "r0", "nodad"]);
  ip(["route", "add", "192.0.2.0/24", "via", "10.0.0.2", "proto", "static"]);
  let batch = "";
  for (let i = 0; i < n; i++) batch += `route add ${16 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}.0/24 via 10.0.0.2 proto 219\n`;
  ip(["-batch", "-"], batch);
  console.log(`${n} routes of protocol 219 in the main table, ${runs} reads each (load ${(await import("node:os")).loadavg()[0].toFixed(1)})`);
  for (const [name, list] of [["whole table (before)", WHOLE], ["per protocol (now)", PER_PROTOCOL]]) {
    const r = Array.from({ length: runs }, () => read(list));
    console.log(`${name.padEnd(22)} median ${median(r.map((x) => x.ms)).toFixed(0)} ms, CPU ${median(r.map((x) => x.cpu)).toFixed(3)} s, ${r[0].routes} routes read`);
  }
} finally {
  execFileSync("ip", ["netns", "del", ns]);
}
