#!/usr/bin/env node
// Memory of routerd-bgp under fast route churn, alone (no serve): a gobgpd peer announces and withdraws
// batches of prefixes several times a second and resets the session now and then, while a client asks the
// daemon's GetStatus every 2 s (as serve does). The daemon runs with bench/soak/memprobe.mjs, which records
// process.memoryUsage() before and after a forced full GC every few seconds: after-GC growth is memory the
// daemon keeps (a leak); before-GC is what RSS follows. Far more churn per minute than the soak, so a leak
// shows in minutes, also on a loaded machine.
// Usage (root, after a build): node bench/bgp/churn.mjs [--minutes 6] [--batch 100] [--every-ms 250]
//   [--reset-seconds 30] [--out DIR] [--no-gc] [--env NAME=VALUE ...] [--node-flags "..."]
import { spawn } from "node:child_process";
import { mkdirSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, askStatus, churnArgs, printReport, probeInto, watchSmaps } from "../soak/churn-kit.mjs";
import { routerdBgpConfig } from "./impls.mjs";
import { destroyLab, makeLab, prefixAt, sleep, startPeer } from "./lab.mjs";

const { values, minutes } = churnArgs({
  batch: { type: "string", default: "100" },
  "every-ms": { type: "string", default: "250" },
  "reset-seconds": { type: "string", default: "30" },
});
const batch = Number(values.batch);
const everyMs = Number(values["every-ms"]);
const resetMs = Number(values["reset-seconds"]) * 1000;
const BATCHES = 10;

const lab = makeLab();
const out = values.out ?? join(lab.dir, "out");
mkdirSync(out, { recursive: true });
let daemon;
let stopping = false;
process.on("SIGINT", () => (stopping = true));
try {
  const peer = await startPeer(lab, 0);
  const dir = join(lab.dir, "routerd");
  mkdirSync(dir, { recursive: true });
  const config = join(dir, "config.json");
  writeFileSync(config, routerdBgpConfig());
  const runDir = join(dir, "run");
  const probe = probeInto(values, out);
  const daemonLog = openSync(join(out, "daemon.log"), "a");
  daemon = spawn(
    "ip",
    ["netns", "exec", lab.r, process.execPath, ...probe.nodeArgs, join(REPO, "apps/routerd-bgp/bin/routerd-bgp.js"),
      "--config", config, "--instance", "bench", "--run-dir", runDir, "--state-dir", join(dir, "state"), "--root", join(dir, "root"), "--log-level", "warn"],
    // The daemon's output (warnings, and V8's traces when --node-flags asks for them) goes to <out>/daemon.log.
    { stdio: ["ignore", daemonLog, daemonLog], env: { ...process.env, ...probe.env } },
  );
  lab.procs.push(daemon);
  // `ip netns exec` execs node: the child's pid is the daemon's.
  const smaps = watchSmaps(daemon.pid, out);
  await peer.addNeighbor();
  await peer.established();
  process.stderr.write(`session up; churning ${minutes} min: ${BATCHES} batches of ${batch} prefixes, one toggled every ${everyMs} ms, reset every ${resetMs / 1000} s\n`);
  const announced = new Array(BATCHES).fill(false);
  let changes = 0;
  let statusCalls = 0;
  const end = Date.now() + minutes * 60_000;
  let nextReset = Date.now() + resetMs;
  let nextStatus = Date.now();
  for (let step = 0; Date.now() < end && !stopping; step++) {
    const b = step % BATCHES;
    const prefixes = Array.from({ length: batch }, (_, i) => prefixAt(b * batch + i));
    await Promise.all(prefixes.map((p) => (announced[b] ? peer.withdraw(p) : peer.announce(p))));
    announced[b] = !announced[b];
    changes += batch;
    if (Date.now() >= nextReset) {
      await peer.deleteNeighbor();
      await sleep(500);
      await peer.addNeighbor();
      nextReset = Date.now() + resetMs;
    }
    if (Date.now() >= nextStatus) {
      if (await askStatus(runDir, "bgp", "bench")) statusCalls++;
      nextStatus = Date.now() + 2000;
    }
    await sleep(everyMs);
  }
  printReport({ minutes, changes, statusCalls }, probe.file, smaps);
  peer.close();
} finally {
  destroyLab(lab);
}
