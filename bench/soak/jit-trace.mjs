#!/usr/bin/env node
// What V8's optimizing compiler did in a process over time, from its log with --trace-opt --trace-deopt
// (e.g. a soak's serve.log after `run.mjs "--serve-node-flags=--trace-opt --trace-deopt"`). The time of a
// trace line is that of the last pino line before it ("time" field), counted from the first one.
// Prints per minute: TurboFan compilations finished, functions optimized for the first time (by name),
// eager deopts, and optimized code thrown away because an object it embedded died ("weak objects");
// then the functions optimized most often and why their code was dropped.
// Usage: node bench/soak/jit-trace.mjs SERVE_LOG [--json]
import { readFileSync } from "node:fs";

const [file, flag] = process.argv.slice(2);
if (!file || file === "--help") {
  process.stdout.write("usage: node bench/soak/jit-trace.mjs LOG [--json]   (LOG written with --trace-opt --trace-deopt)\n");
  process.exit(file ? 0 : 2);
}

const OPTIMIZED = /^\[completed optimizing 0x\w+ <JSFunction (\S*) \(sfi/;
const DEOPT = /^\[bailout \(kind: (\S+), reason: ([^)]*)\): begin\. deoptimizing 0x\w+ <JSFunction (\S*) /;
const DROPPED = /^\[marking dependent code 0x\w+ <Code \w+> \(0x\w+ <SharedFunctionInfo ([^>]*)>\).* reason: ([\w ]+)\]/;

const perMinute = new Map();
const optimized = new Map();
const deopts = new Map();
const dropped = new Map();
const bump = (m, k) => m.set(k, (m.get(k) ?? 0) + 1);
let t0;
let minute = 0;
for (const line of readFileSync(file, "utf8").split("\n")) {
  if (line.startsWith("{")) {
    const time = /"time":(\d+)/.exec(line)?.[1];
    if (time) {
      t0 ??= Number(time);
      minute = Math.floor((Number(time) - t0) / 60_000);
    }
    continue;
  }
  const row = perMinute.get(minute) ?? { optimized: 0, firstTime: 0, deopts: 0, weakDropped: 0 };
  perMinute.set(minute, row);
  let m;
  if ((m = OPTIMIZED.exec(line))) {
    const name = m[1] || "(anonymous)";
    row.optimized++;
    if (!optimized.has(name)) row.firstTime++;
    bump(optimized, name);
  } else if ((m = DEOPT.exec(line))) {
    row.deopts++;
    bump(deopts, `${m[3] || "(anonymous)"}: ${m[2]}`);
  } else if ((m = DROPPED.exec(line))) {
    if (m[2].startsWith("weak")) row.weakDropped++;
    bump(dropped, `${m[1] || "(anonymous)"}: ${m[2]}`);
  }
}

const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
const summary = {
  perMinute: Object.fromEntries(perMinute),
  functionsOptimized: optimized.size,
  optimizations: [...optimized.values()].reduce((a, b) => a + b, 0),
  mostOptimized: top(optimized, 20),
  deopts: top(deopts, 20),
  dropped: top(dropped, 20),
};
if (flag === "--json") process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
else {
  // One write: a reader that stops early (| head) closes the pipe once, not in the middle of a loop.
  const lines = ["minute  optimized  first-time  deopts  dropped(weak)"];
  for (const [min, r] of perMinute) lines.push(`${String(min).padStart(6)}  ${String(r.optimized).padStart(9)}  ${String(r.firstTime).padStart(10)}  ${String(r.deopts).padStart(6)}  ${String(r.weakDropped).padStart(13)}`);
  lines.push("", `${summary.optimizations} optimizations of ${summary.functionsOptimized} functions (by name)`);
  lines.push(`most optimized: ${summary.mostOptimized.map(([k, v]) => `${k} ×${v}`).join(", ")}`);
  lines.push(`deopts: ${summary.deopts.map(([k, v]) => `${k} ×${v}`).join("; ")}`);
  lines.push(`code dropped: ${summary.dropped.map(([k, v]) => `${k} ×${v}`).join("; ")}`);
  process.stdout.on("error", () => {}); // EPIPE from a closed reader
  process.stdout.write(lines.join("\n") + "\n");
}
