#!/usr/bin/env node
// Top functions by self time in a V8 .cpuprofile (from `node --cpu-prof`), so a slow phase can be named
// without opening DevTools. Usage: node bench/reconcile/profile-summary.mjs FILE.cpuprofile [TOP]
import { readFileSync } from "node:fs";

export function summarizeProfile(path, top = 15) {
  const p = JSON.parse(readFileSync(path, "utf8"));
  const totalUs = p.endTime - p.startTime;
  const self = new Map();
  const intervalUs = p.samples.length ? totalUs / p.samples.length : 0;
  const hits = new Map();
  for (const id of p.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  for (const node of p.nodes) {
    const f = node.callFrame;
    const where = f.url ? `${f.url.replace(/^file:\/\/.*?\/(apps|packages|node_modules)\//, "$1/")}:${f.lineNumber + 1}` : "";
    const key = `${f.functionName || "(anonymous)"} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + (hits.get(node.id) ?? 0) * intervalUs);
  }
  // Inclusive time per function (callees included, recursion counted once): names the slow stage.
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const keyOf = (n) => {
    const f = n.callFrame;
    const where = f.url ? `${f.url.replace(/^file:\/\/.*?\/(apps|packages|node_modules)\//, "$1/")}:${f.lineNumber + 1}` : "";
    return `${f.functionName || "(anonymous)"} ${where}`.trim();
  };
  const inclusive = new Map();
  const walk = (id, onStack) => {
    const n = byId.get(id);
    const key = keyOf(n);
    let us = (hits.get(id) ?? 0) * intervalUs;
    const fresh = !onStack.has(key);
    if (fresh) onStack.add(key);
    for (const c of n.children ?? []) us += walk(c, onStack);
    if (fresh) {
      onStack.delete(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
    return us;
  };
  walk(p.nodes[0].id, new Set());
  const ranked = (m) =>
    [...m]
      .filter(([fn]) => !/^\((root|program|idle)\)/.test(fn))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, us]) => ({ fn, ms: Math.round(us / 1000), share: `${Math.round((100 * us) / totalUs)}%` }));
  return {
    totalMs: Math.round(totalUs / 1000),
    inclusive: ranked(inclusive).filter((x) => x.fn.includes("/")),
    top: [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, us]) => ({ fn, selfMs: Math.round(us / 1000), share: `${Math.round((100 * us) / totalUs)}%` })),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (!process.argv[2]) {
    process.stderr.write("usage: profile-summary.mjs FILE.cpuprofile [TOP]\n");
    process.exit(2);
  }
  process.stdout.write(JSON.stringify(summarizeProfile(process.argv[2], Number(process.argv[3] ?? 15)), null, 2) + "\n");
}
