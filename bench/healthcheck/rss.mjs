#!/usr/bin/env node
// RSS and CPU of routerd-healthcheck with a few probes at 1 s against local peers on 127.0.0.1 (an HTTP
// server, a TCP listener and a DNS responder run by this script; ICMP pings 127.0.0.1).
// Build first: npx turbo run build --filter=@routerd/healthcheck
// Usage: node bench/healthcheck/rss.mjs [--seconds 30] [--warmup 10] [--probes 4] [--full-jit] [--node-flags=--some-v8-flag]
// Prints one JSON summary. RSS target: <= 60 MB for the idle daemon with 4 probes at 1 s.
import { spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const repo = new URL("../..", import.meta.url).pathname;
const bin = join(repo, "apps/routerd-healthcheck/bin/routerd-healthcheck.js");
const rpcDist = join(repo, "packages/rpc/dist/index.js");
for (const f of [join(repo, "apps/routerd-healthcheck/dist/main.js"), rpcDist]) {
  if (!existsSync(f)) {
    process.stderr.write(`missing ${f}: run npx turbo run build --filter=@routerd/healthcheck\n`);
    process.exit(2);
  }
}
const { connectDaemon, diagnoseSocket } = await import(rpcDist);

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "30" },
    warmup: { type: "string", default: "10" },
    probes: { type: "string", default: "4" },
    "node-flags": { type: "string", default: "" },
    // The launcher runs V8's interpreter alone; this measures the daemon with the full JIT.
    "full-jit": { type: "boolean", default: false },
  },
});
const seconds = Number(values.seconds);
const warmup = Number(values.warmup);
const nodeFlags = values["node-flags"].split(" ").filter(Boolean);
const CLK_TCK = 100;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const status = (pid) => readFileSync(`/proc/${pid}/status`, "utf8");
const kib = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status(pid))?.[1]);
/** utime+stime of the process, and of its reaped children (the pings), in ms. */
function cpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return { self: ((+f[11] + +f[12]) * 1000) / CLK_TCK, children: ((+f[13] + +f[14]) * 1000) / CLK_TCK };
}

// Local peers.
const http = createHttpServer((_req, res) => res.end("ok")).listen(0, "127.0.0.1");
const tcp = createServer((s) => s.end()).listen(0, "127.0.0.1");
const dns = createSocket("udp4").bind(0, "127.0.0.1");
await Promise.all([once(http, "listening"), once(tcp, "listening"), once(dns, "listening")]);
dns.on("message", (msg, rinfo) => {
  // Echo the question back as a response with one A record (enough for the probe's checks).
  const q = msg.subarray(12);
  const answer = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1]);
  const header = Buffer.from(msg.subarray(0, 12));
  header.writeUInt16BE(0x8180, 2);
  header.writeUInt16BE(1, 6);
  dns.send(Buffer.concat([header, q, answer]), rinfo.port, rinfo.address);
});

const timing = { intervalMs: 1000, timeoutMs: 500, healthyThreshold: 2, unhealthyThreshold: 3 };
const kinds = [
  { type: "icmp", target: "127.0.0.1" },
  { type: "tcp", target: "127.0.0.1", port: tcp.address().port },
  { type: "http", target: "127.0.0.1", port: http.address().port, path: "/health" },
  { type: "dns", target: "127.0.0.1", port: dns.address().port, query: { name: "bench.example", type: "A" } },
];
const probes = Array.from({ length: Number(values.probes) }, (_, i) => ({ name: `p${i}-${kinds[i % 4].type}`, ...kinds[i % 4], ...timing }));

const root = mkdtempSync(join(tmpdir(), "rd-hc-bench-"));
const configPath = join(root, "healthcheck.json");
writeFileSync(configPath, JSON.stringify({ probes }));
const socketPath = join(root, "run", "healthcheck", "default.sock");
const daemon = spawn(process.execPath, [...nodeFlags, bin, "--config", configPath, "--run-dir", join(root, "run"), "--state-dir", join(root, "state"), "--log-level", "warn"], {
  stdio: ["ignore", "ignore", "inherit"],
  env: { ...process.env, ...(values["full-jit"] ? { ROUTERD_HEALTHCHECK_FULL_JIT: "1" } : {}) },
});

try {
  const deadline = Date.now() + 15_000;
  while ((await diagnoseSocket(socketPath)) !== undefined) {
    if (Date.now() > deadline || daemon.exitCode !== null) throw new Error("routerd-healthcheck did not start");
    await sleep(50);
  }
  const rssStartKiB = kib(daemon.pid, "VmRSS");
  await sleep(warmup * 1000);
  const cpu0 = cpuMs(daemon.pid);
  const samples = [];
  for (let s = 0; s < seconds; s++) {
    await sleep(1000);
    samples.push(kib(daemon.pid, "VmRSS"));
  }
  const cpu1 = cpuMs(daemon.pid);

  const client = await connectDaemon(socketPath);
  const st = await client.getStatus();
  client.close();
  const attempts = probes.length * seconds;
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (x) => Math.round(x * 100) / 100;
  console.log(
    JSON.stringify(
      {
        bench: "routerd-healthcheck RSS and probe CPU",
        node: process.version,
        nodeFlags,
        liteMode: !values["full-jit"],
        probes: probes.map((p) => p.name),
        intervalMs: timing.intervalMs,
        seconds,
        phases: Object.fromEntries(st.resources.map((r) => [r.name, r.phase])),
        rssAtStartKiB: rssStartKiB,
        rssMedianKiB: sorted[Math.floor(sorted.length / 2)],
        rssMaxKiB: sorted.at(-1),
        vmHwmKiB: kib(daemon.pid, "VmHWM"),
        targetRssKiB: 60 * 1024,
        rssUnderTarget: sorted.at(-1) <= 60 * 1024,
        cpuDaemonMsPerSecond: round((cpu1.self - cpu0.self) / seconds),
        cpuPingChildrenMsPerSecond: round((cpu1.children - cpu0.children) / seconds),
        cpuDaemonMsPerAttempt: round((cpu1.self - cpu0.self) / attempts),
        cpuTotalPercentOfOneCore: round(((cpu1.self - cpu0.self + cpu1.children - cpu0.children) / (seconds * 1000)) * 100),
      },
      null,
      2,
    ),
  );
} finally {
  daemon.kill("SIGTERM");
  await Promise.race([once(daemon, "exit"), sleep(5000)]);
  if (daemon.exitCode === null && daemon.signalCode === null) daemon.kill("SIGKILL");
  http.close();
  tcp.close();
  dns.close();
  rmSync(root, { recursive: true, force: true });
}
