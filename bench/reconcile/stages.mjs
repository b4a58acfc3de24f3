#!/usr/bin/env node
// Diagnostic: where one reconcile spends its time, stage by stage, using routerd's built modules directly.
// Run inside the benchmark namespace (run.mjs --stages does): ip netns exec NS node stages.mjs CONFIG STATE ROOT RUN
// Prints JSON: ms per stage (module load, YAML load+validate, desired, observe, plan, full reconcileOnce).
import { readFileSync } from "node:fs";

const t0 = performance.now();
const repo = new URL("../..", import.meta.url).pathname;
const { loadConfig } = await import(`${repo}packages/api/dist/index.js`);
const { systemRunner } = await import(`${repo}packages/host/dist/index.js`);
const { LedgerSession, readStatuses } = await import(`${repo}packages/resource/dist/index.js`);
const { computeDesired } = await import(`${repo}apps/routerd/dist/core/desired.js`);
const { observeFor, reconcileOnce } = await import(`${repo}apps/routerd/dist/core/engine.js`);
const { plan } = await import(`${repo}apps/routerd/dist/core/plan.js`);
const [configPath, stateDir, root, runDir] = process.argv.slice(2);
const ms = {};
let t = performance.now();
const lap = (name) => {
  const now = performance.now();
  ms[name] = Math.round(now - t);
  t = now;
};
ms.moduleLoad = Math.round(t - t0);

const { config, issues } = loadConfig(readFileSync(configPath, "utf8"), configPath);
if (!config) throw new Error(`invalid config: ${JSON.stringify(issues.slice(0, 3))}`);
lap("loadConfig (YAML parse + validate)");
const host = { root, stateDir, runDir, runner: systemRunner };
const session = LedgerSession.open(stateDir);
const statuses = readStatuses(stateDir);
lap("open ledger + read status");
const desired = computeDesired({ config, when: new Map() });
lap("computeDesired (intents + nft render)");
const inventory = await observeFor(desired, session.ledger.list(), host);
lap("observe inventory (ip -j, nft -j)");
const p = plan({ desired, inventory, ledger: session.ledger, statuses, allowEmpty: false });
lap("plan (diff + GC planner)");
session.close();
const r = await reconcileOnce(config, { host });
lap("reconcileOnce total (repeats the stages above, then apply, verify, record)");
const s = p.summary;
process.stdout.write(JSON.stringify({ ms, plannedChanges: { create: s.create, update: s.update, delete: s.delete }, ok: r.ok, maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) }) + "\n");
