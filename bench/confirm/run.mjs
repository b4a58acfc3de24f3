#!/usr/bin/env node
// Confirm-or-rollback: how long after the deadline the previous generation is back on the host, against the
// same change made by hand with a plain `routerd reconcile --once` (the baseline: what any revert costs).
// Config A has a filter table with an accepting rule; B drops it. Each run applies B with
// --confirm-within 3s, does not confirm, and polls `nft list table` until A's table text is back.
// Median of --runs. Run as root from the repository after a build: node bench/confirm/run.mjs [--runs 5]
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { runs: { type: "string", default: "5" } } });
const RUNS = Number(values.runs);
const ROUTERD = new URL("../../apps/routerd/bin/routerd.js", import.meta.url).pathname;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const ns = `rdc-${randomBytes(3).toString("hex")}`;
const dir = mkdtempSync(join(tmpdir(), "routerd-bench-confirm-"));
const sh = (cmd, args, input) => spawnSync(cmd, args, { encoding: "utf8", input: input ?? "" });
const inNs = (args) => sh("ip", ["netns", "exec", ns, ...args]);
const routerd = (args) => inNs([process.execPath, ROUTERD, ...args, "--state-dir", join(dir, "state"), "--root", join(dir, "root"), "--run-dir", join(dir, "run")]);
const table = () => inNs(["nft", "list", "table", "inet", "routerd_filter"]).stdout;

function config(withRule) {
  const r = (apiVersion, kind, name, spec) => ({ apiVersion, kind, metadata: { name }, spec });
  const resources = [
    r("net.routerd.net/v1alpha1", "Interface", "mgmt", { ifname: "mgmt0" }),
    r("net.routerd.net/v1alpha1", "IPv4StaticAddress", "mgmt-address", { interface: "mgmt", address: "10.99.0.1/24" }),
    r("firewall.routerd.net/v1alpha1", "FirewallZone", "management", { role: "mgmt", interfaces: ["mgmt"] }),
    r("firewall.routerd.net/v1alpha1", "FirewallPolicy", "default", { defaultInput: "drop", defaultForward: "drop" }),
    ...(withRule ? [r("firewall.routerd.net/v1alpha1", "FirewallRule", "ssh", { fromZone: "management", toZone: "self", protocol: "tcp", port: 22, action: "accept" })] : []),
  ];
  return JSON.stringify({ apiVersion: "routerd.net/v1alpha1", kind: "Router", metadata: { name: "bench" }, spec: { resources } });
}

const pendingDeadline = () => {
  try {
    return Date.parse(JSON.parse(readFileSync(join(dir, "state", "generations", "pending.json"), "utf8")).deadline);
  } catch {
    return undefined;
  }
};

try {
  sh("ip", ["netns", "add", ns]);
  sh("ip", ["-n", ns, "link", "add", "mgmt0", "type", "veth", "peer", "name", "mgmt0p"]);
  const fileA = join(dir, "a.yaml");
  const fileB = join(dir, "b.yaml");
  writeFileSync(fileA, config(true));
  writeFileSync(fileB, config(false));
  if (routerd(["apply", "--config", fileA]).status !== 0) throw new Error("apply A failed");
  const textA = table();
  const revert = [];
  const plain = [];
  for (let i = 0; i < RUNS; i++) {
    writeFileSync(fileB, config(false));
    const applied = routerd(["apply", "--config", fileB, "--confirm-within", "3s"]);
    if (applied.status !== 0) throw new Error(`apply B failed: ${applied.stderr}`);
    const deadline = pendingDeadline();
    for (;;) {
      if (table() === textA) break;
      await sleep(20);
    }
    revert.push(Date.now() - deadline);
    while (pendingDeadline() !== undefined) await sleep(50);
    // Baseline: the same step from B back to A, made by hand.
    if (routerd(["apply", "--config", fileB]).status !== 0) throw new Error("apply B (baseline) failed");
    const start = Date.now();
    if (routerd(["apply", "--config", fileA]).status !== 0) throw new Error("apply A (baseline) failed");
    plain.push(Date.now() - start);
  }
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`revert back on the host after the deadline: median ${median(revert)} ms (runs: ${revert.join(", ")})`);
  console.log(`plain reconcile B→A (process start to exit): median ${median(plain)} ms (runs: ${plain.join(", ")})`);
  console.log(`load average ${load}; ${readdirSync(join(dir, "state", "generations")).filter((f) => f.endsWith(".json") && f !== "pending.json").length} generations kept`);
} finally {
  sh("ip", ["netns", "del", ns]);
  rmSync(dir, { recursive: true, force: true });
}
