#!/usr/bin/env node
// Reconcile at scale: 10,000 IPv4Route + 1,000 PortForward + 200 IPv4StaticAddress (by default) in a
// namespace this script creates and always removes. Measures, median of --runs each:
//   first   `routerd reconcile --once` from an empty namespace and an empty state dir
//   noop    `routerd reconcile --once` again on the reconciled namespace (must change nothing)
//   plan    `routerd plan`
//   baseline one `ip -batch` file plus one `nft -f` file with the same state, from an empty namespace
// and the routerd process's peak RSS (rss-hook.mjs). Checks that routerd and the baseline produce the same
// routes, addresses and DNAT rules. Prints a table and a JSON summary.
// Build first (npx turbo run build --filter=routerd...). Run as root:
//   node bench/reconcile/run.mjs [--routes 10000] [--forwards 1000] [--addresses 200] [--runs 5]
//                                [--json-out FILE] [--cpu-prof DIR] [--stages] [--node-flags="FLAGS"]
// --node-flags="...": node/V8 flags for every routerd run (with "="), e.g. "--no-turbofan --no-maglev
// --no-sparkplug --regexp-interpret-all --optimize-for-size" (what serve sets on itself: INTERPRETER_ONLY in
// daemon-kit's v8-flags.ts) to see what serve's interpreter-only reconcile costs at this scale.
// --cpu-prof and --stages add untimed diagnostic runs: a CPU profile summary, and time per pipeline stage.
// --cleanup also times a reconcile that removes every IPv4Route (orphan cleanup at scale), --runs times.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { routerYaml, writeBenchFiles } from "./generate.mjs";
import { BenchNetns } from "./netns.mjs";
import { summarizeProfile } from "./profile-summary.mjs";
import { formatTable, median, sameState, stats, targetsOf } from "./report.mjs";

const repo = new URL("../..", import.meta.url).pathname;
const ROUTERD = join(repo, "apps/routerd/bin/routerd.js");
const HOOK = new URL("./rss-hook.mjs", import.meta.url).pathname;

const { values } = parseArgs({
  options: {
    routes: { type: "string", default: "10000" },
    forwards: { type: "string", default: "1000" },
    addresses: { type: "string", default: "200" },
    runs: { type: "string", default: "5" },
    "json-out": { type: "string" },
    "cpu-prof": { type: "string" },
    stages: { type: "boolean" },
    cleanup: { type: "boolean" },
    "node-flags": { type: "string", default: "" },
  },
});
const NODE_FLAGS = values["node-flags"].split(/\s+/).filter(Boolean);
const size = { routes: Number(values.routes), forwards: Number(values.forwards), addresses: Number(values.addresses) };
const runs = Number(values.runs);

if (process.getuid?.() !== 0) fail("run as root: the benchmark creates a network namespace");
if (!existsSync(join(repo, "apps/routerd/dist/main.js"))) fail("routerd is not built: npx turbo run build --filter=routerd...");

function fail(message) {
  process.stderr.write(`bench/reconcile: ${message}\n`);
  process.exit(2);
}

const tmp = mkdtempSync(join(tmpdir(), "rd-bench-reconcile-"));
const { shape, files } = writeBenchFiles(tmp, size);
const ns = new BenchNetns(shape.lans);
const stateDir = join(tmp, "state");
const cleanup = () => {
  ns.destroy();
  rmSync(tmp, { recursive: true, force: true });
};
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, async () => {
    await ns.killCurrent();
    cleanup();
    process.exit(130);
  });
}

/** One routerd invocation in the namespace; returns wall time and the process's own peak RSS. */
async function routerd(args, extraNode = [], config = files.config) {
  const rssFile = join(tmp, "rss");
  rmSync(rssFile, { force: true });
  const dirs = ["--state-dir", stateDir, "--root", join(tmp, "root"), "--run-dir", join(tmp, "run")];
  const r = await ns.run([process.execPath, "--import", HOOK, ...NODE_FLAGS, ...extraNode, ROUTERD, ...args, "--config", config, ...dirs], {
    env: { ...process.env, ROUTERD_BENCH_RSS_FILE: rssFile },
  });
  const usage = existsSync(rssFile) ? JSON.parse(readFileSync(rssFile, "utf8")) : undefined;
  const rssKiB = usage?.maxRssKiB;
  const cpuMs = usage ? (usage.userUs + usage.systemUs) / 1000 : undefined;
  if (r.code !== 0 && !(args[0] === "plan" && r.code === 2)) {
    throw new Error(`routerd ${args.join(" ")} exited ${r.code}${r.signal ? ` (${r.signal})` : ""} after ${Math.round(r.ms)} ms: ${(r.stderr || r.stdout).slice(-2000)}`);
  }
  return { ...r, rssKiB, cpuMs };
}

function summaryOf(stdout) {
  return JSON.parse(stdout).summary;
}

const log = (s) => process.stderr.write(`${s}\n`);
const result = { date: new Date().toISOString(), machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memGiB: Math.round(totalmem() / 2 ** 30), node: process.version, loadavgAtStart: loadavg().map((x) => Math.round(x * 100) / 100) }, size, runs };

try {
  log(`bench/reconcile: ${size.routes} routes, ${size.forwards} port forwards, ${size.addresses} addresses; ${runs} runs each; namespace ${ns.name}`);

  const baseline = [];
  for (let i = 0; i < runs; i++) {
    ns.reset();
    const ip = await ns.run(["ip", "-batch", files.ipBatch]);
    if (ip.code !== 0) throw new Error(`baseline ip -batch failed: ${ip.stderr.slice(-1000)}`);
    const nft = await ns.run(["nft", "-f", files.nft]);
    if (nft.code !== 0) throw new Error(`baseline nft -f failed: ${nft.stderr.slice(-1000)}`);
    baseline.push(ip.ms + nft.ms);
    log(`  baseline ${i + 1}/${runs}: ${Math.round(ip.ms)} ms ip -batch + ${Math.round(nft.ms)} ms nft -f`);
  }
  const baselineState = ns.snapshot();

  const first = [];
  const rss = [];
  const rssBy = { first: [], noop: [], plan: [], cleanup: [] };
  const cpu = { first: [], noop: [], plan: [] };
  for (let i = 0; i < runs; i++) {
    ns.reset();
    rmSync(stateDir, { recursive: true, force: true });
    const r = await routerd(["reconcile", "--once", "--json"]);
    const s = summaryOf(r.stdout);
    first.push(r.ms);
    cpu.first.push(r.cpuMs);
    rss.push(r.rssKiB);
    rssBy.first.push(r.rssKiB);
    log(`  first reconcile ${i + 1}/${runs}: ${Math.round(r.ms)} ms, ${s.create} created, ${s.update} updated, peak RSS ${Math.round(r.rssKiB / 1024)} MiB`);
  }
  const routerdState = ns.snapshot();
  const equivalence = sameState(routerdState, baselineState);

  const noop = [];
  for (let i = 0; i < runs; i++) {
    const r = await routerd(["reconcile", "--once", "--json"]);
    const s = summaryOf(r.stdout);
    if (s.create || s.update || s.delete) throw new Error(`no-op reconcile changed something: ${JSON.stringify(s)}`);
    noop.push(r.ms);
    cpu.noop.push(r.cpuMs);
    rss.push(r.rssKiB);
    rssBy.noop.push(r.rssKiB);
    log(`  no-op reconcile ${i + 1}/${runs}: ${Math.round(r.ms)} ms, peak RSS ${Math.round(r.rssKiB / 1024)} MiB`);
  }

  const plan = [];
  for (let i = 0; i < runs; i++) {
    const r = await routerd(["plan", "--json", "--detailed-exitcode"]);
    if (r.code !== 0) throw new Error(`plan after reconcile reports changes (exit ${r.code})`);
    plan.push(r.ms);
    cpu.plan.push(r.cpuMs);
    rss.push(r.rssKiB);
    rssBy.plan.push(r.rssKiB);
    log(`  plan ${i + 1}/${runs}: ${Math.round(r.ms)} ms`);
  }

  if (values.cleanup) {
    const noRoutes = join(tmp, "no-routes.yaml");
    const generated = new Set(shape.routes.map((r) => r.destination));
    writeFileSync(noRoutes, routerYaml({ ...shape, routes: [] }));
    const times = [];
    for (let i = 0; i < runs; i++) {
      await routerd(["reconcile", "--once", "--json"]);
      const r = await routerd(["reconcile", "--once", "--json"], [], noRoutes);
      if (values["cpu-prof"] && i === 0) {
        // An untimed, profiled twin of the first cleanup run.
        await routerd(["reconcile", "--once", "--json"]);
        const dir = join(values["cpu-prof"], "cleanup");
        await routerd(["reconcile", "--once", "--json"], ["--cpu-prof", "--cpu-prof-dir", dir, "--cpu-prof-name", "cleanup.cpuprofile"], noRoutes);
        result.profile = { ...result.profile, cleanup: summarizeProfile(join(dir, "cleanup.cpuprofile"), 12) };
      }
      const s = summaryOf(r.stdout);
      const left = ns.snapshot().routes.filter((l) => generated.has(l.split(" ")[0])).length;
      if (s.delete !== size.routes || left) throw new Error(`cleanup reconcile deleted ${s.delete} of ${size.routes} routes; ${left} left on the host`);
      times.push(r.ms);
      rss.push(r.rssKiB);
      rssBy.cleanup.push(r.rssKiB);
      log(`  cleanup reconcile ${i + 1}/${runs}: ${Math.round(r.ms)} ms, ${s.delete} routes removed`);
    }
    result.cleanupReconcile = stats(times);
  }

  if (values["cpu-prof"]) {
    const dir = values["cpu-prof"];
    ns.reset();
    rmSync(stateDir, { recursive: true, force: true });
    await routerd(["reconcile", "--once", "--json"], ["--cpu-prof", "--cpu-prof-dir", join(dir, "first"), "--cpu-prof-name", "first.cpuprofile"]);
    await routerd(["reconcile", "--once", "--json"], ["--cpu-prof", "--cpu-prof-dir", join(dir, "noop"), "--cpu-prof-name", "noop.cpuprofile"]);
    result.profile = {
      ...result.profile,
      first: summarizeProfile(join(dir, "first", "first.cpuprofile"), 12),
      noop: summarizeProfile(join(dir, "noop", "noop.cpuprofile"), 12),
    };
  }

  if (values.stages) {
    const stagesJs = new URL("./stages.mjs", import.meta.url).pathname;
    const stageRun = async () => {
      const r = await ns.run([process.execPath, stagesJs, files.config, stateDir, join(tmp, "root"), join(tmp, "run")]);
      if (r.code !== 0) throw new Error(`stages.mjs failed: ${r.stderr.slice(-1000)}`);
      return JSON.parse(r.stdout);
    };
    ns.reset();
    rmSync(stateDir, { recursive: true, force: true });
    result.stages = { first: await stageRun(), noop: await stageRun() };
  }

  const peakRssMiB = Math.round(Math.max(...rss) / 1024);
  Object.assign(result, {
    baseline: stats(baseline),
    firstReconcile: stats(first),
    noopReconcile: stats(noop),
    plan: stats(plan),
    routerdCpuMedianMs: { first: Math.round(median(cpu.first)), noop: Math.round(median(cpu.noop)), plan: Math.round(median(cpu.plan)) },
    peakRssMiB,
    peakRssMiBByMeasure: Object.fromEntries(Object.entries(rssBy).filter(([, v]) => v.length).map(([k, v]) => [k, Math.round(Math.max(...v) / 1024)])),
    equivalence,
  });
  result.machine.loadavgAtEnd = loadavg().map((x) => Math.round(x * 100) / 100);
  result.targets = targetsOf({ first, noop, baseline, peakRssMiB, equivalent: equivalence.equivalent });
  process.stdout.write(`${formatTable(result)}\n\n${JSON.stringify(result, null, 2)}\n`);
  if (values["json-out"]) writeFileSync(values["json-out"], JSON.stringify(result, null, 2) + "\n");
} catch (err) {
  process.stderr.write(`bench/reconcile: ${err.message}\n`);
  process.exitCode = 1;
} finally {
  cleanup();
}
