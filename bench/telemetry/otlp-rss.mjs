#!/usr/bin/env node
// What OTLP export costs a daemon: routerd-healthcheck (one TCP probe at 1 s against a local listener) started
// without telemetry, and with an ObservabilityPipeline exporting logs, metrics (every second) and traces over
// OTLP/HTTP to a local receiver that answers 200. Alternates the two, --runs times each; reports start-up time
// (spawn → daemon socket answers), median and peak RSS after --warmup, and the receiver's request count (proof
// that the export ran). The SDK is loaded only in the second case (otlp/export.ts imports it on demand).
// Build first: npx turbo run build --filter=@routerd/healthcheck...
// Usage: node bench/telemetry/otlp-rss.mjs [--runs 3] [--seconds 10] [--warmup 5]
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const repo = new URL("../..", import.meta.url).pathname;
const bin = join(repo, "apps/routerd-healthcheck/bin/routerd-healthcheck.js");
const rpcDist = join(repo, "packages/rpc/dist/index.js");
for (const f of [join(repo, "apps/routerd-healthcheck/dist/main.js"), rpcDist]) {
  if (!existsSync(f)) {
    process.stderr.write(`missing ${f}: run npx turbo run build --filter=@routerd/healthcheck...\n`);
    process.exit(2);
  }
}
const { diagnoseSocket } = await import(rpcDist);
const { values } = parseArgs({ options: { runs: { type: "string", default: "3" }, seconds: { type: "string", default: "10" }, warmup: { type: "string", default: "5" } } });
const runs = Number(values.runs);
const seconds = Number(values.seconds);
const warmup = Number(values.warmup);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const kib = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const tcp = createServer((s) => s.end()).listen(0, "127.0.0.1");
let requests = 0;
const receiver = createHttpServer((req, res) => {
  req.resume();
  req.on("end", () => {
    requests += 1;
    res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
  });
}).listen(0, "127.0.0.1");
await Promise.all([once(tcp, "listening"), once(receiver, "listening")]);

const root = mkdtempSync(join(tmpdir(), "rd-otlp-bench-"));
const configPath = join(root, "healthcheck.json");
writeFileSync(configPath, JSON.stringify({ probes: [{ name: "p0-tcp", type: "tcp", target: "127.0.0.1", port: tcp.address().port, intervalMs: 1000, timeoutMs: 500, healthyThreshold: 2, unhealthyThreshold: 3 }] }));
const settingsPath = join(root, "telemetry.json");
writeFileSync(
  settingsPath,
  JSON.stringify({
    sinks: [],
    metrics: true,
    attributes: { site: "bench" },
    serviceNamespace: "routerd",
    otlp: { pipeline: "bench", endpoint: `http://127.0.0.1:${receiver.address().port}`, headers: {}, signals: ["logs", "metrics", "traces"], samplingRate: 1 },
  }),
);

async function measure(variant) {
  const runDir = join(root, `run-${variant}`);
  const socketPath = join(runDir, "healthcheck", "default.sock");
  const { ROUTERD_TELEMETRY: _ignored, ...inherited } = process.env;
  const env = { ...inherited, ...(variant === "otlp" ? { ROUTERD_TELEMETRY: settingsPath, OTEL_METRIC_EXPORT_INTERVAL: "1000" } : {}) };
  const requestsBefore = requests;
  const started = performance.now();
  const daemon = spawn(process.execPath, [bin, "--config", configPath, "--run-dir", runDir, "--state-dir", join(root, `state-${variant}`), "--log-level", "info"], { stdio: ["ignore", "ignore", "inherit"], env });
  try {
    const deadline = Date.now() + 20_000;
    while ((await diagnoseSocket(socketPath)) !== undefined) {
      if (Date.now() > deadline || daemon.exitCode !== null) throw new Error("routerd-healthcheck did not start");
      await sleep(20);
    }
    const startupMs = performance.now() - started;
    await sleep(warmup * 1000);
    const samples = [];
    for (let s = 0; s < seconds; s++) {
      await sleep(1000);
      samples.push(kib(daemon.pid, "VmRSS"));
    }
    return { startupMs: Math.round(startupMs), rssMedianKiB: median(samples), rssMaxKiB: Math.max(...samples), vmHwmKiB: kib(daemon.pid, "VmHWM"), otlpRequests: requests - requestsBefore };
  } finally {
    daemon.kill("SIGTERM");
    await Promise.race([once(daemon, "exit"), sleep(5000)]);
    if (daemon.exitCode === null && daemon.signalCode === null) daemon.kill("SIGKILL");
    rmSync(runDir, { recursive: true, force: true });
  }
}

const results = { none: [], otlp: [] };
const loadBefore = loadavg()[0];
try {
  for (let i = 0; i < runs; i++) for (const v of ["none", "otlp"]) results[v].push(await measure(v));
} finally {
  tcp.close();
  receiver.close();
  rmSync(root, { recursive: true, force: true });
}
const summary = (rs) => ({ startupMsMedian: median(rs.map((r) => r.startupMs)), rssMedianKiB: median(rs.map((r) => r.rssMedianKiB)), rssMaxKiB: Math.max(...rs.map((r) => r.rssMaxKiB)), otlpRequests: rs.map((r) => r.otlpRequests) });
const none = summary(results.none);
const otlp = summary(results.otlp);
console.log(
  JSON.stringify(
    {
      bench: "routerd-healthcheck with and without OTLP export (logs, metrics at 1 s, traces)",
      node: process.version,
      runs,
      seconds,
      warmup,
      loadAverage: [Math.round(loadBefore * 10) / 10, Math.round(loadavg()[0] * 10) / 10],
      none,
      otlp,
      otlpCostKiB: otlp.rssMedianKiB - none.rssMedianKiB,
      runsDetail: results,
    },
    null,
    2,
  ),
);
