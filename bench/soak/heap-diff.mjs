#!/usr/bin/env node
// What a process kept between two heap snapshots of the same process (--heap-snapshots of run.mjs, or
// --heapsnapshot-signal): V8 node ids are stable within a process, so the nodes of the second snapshot whose
// ids the first does not have were allocated in between and are still alive. They are grouped by
// constructor (type:name) with count and self size, largest first, each with one retainer path.
// --totals also compares every constructor's count and self size in the two snapshots (what grew in all, new
// or old: an array that reallocated its backing store, a map's table).
// Usage: node bench/soak/heap-diff.mjs FIRST.heapsnapshot SECOND.heapsnapshot [--top 25] [--depth 14] [--totals]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: "string", default: "25" }, depth: { type: "string", default: "14" }, totals: { type: "boolean", default: false } } });
if (positionals.length !== 2) {
  process.stderr.write("usage: heap-diff.mjs FIRST.heapsnapshot SECOND.heapsnapshot [--top N] [--depth N]\n");
  process.exit(2);
}

function load(path) {
  const snap = JSON.parse(readFileSync(path, "utf8"));
  const meta = snap.snapshot.meta;
  const nf = meta.node_fields;
  const ef = meta.edge_fields;
  const f = Object.fromEntries(nf.map((k, i) => [k, i]));
  const e = Object.fromEntries(ef.map((k, i) => [k, i]));
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const N = nf.length;
  const E = ef.length;
  const count = snap.nodes.length / N;
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0, edge = 0; i < count; i++) {
    firstEdge[i] = edge;
    edge += snap.nodes[i * N + f.edge_count] * E;
  }
  firstEdge[count] = snap.edges.length;
  return { snap, f, e, N, E, count, nodeTypes, edgeTypes, firstEdge, strings: snap.strings };
}

const label = (h, i) => {
  const type = h.nodeTypes[h.snap.nodes[i * h.N + h.f.type]];
  const name = h.strings[h.snap.nodes[i * h.N + h.f.name]];
  if (type === "string" || type === "concatenated string" || type === "sliced string") return "(string)";
  if (type === "number") return "(number)";
  // V8's code space by kind (bytecode, feedback, optimized or baseline code, their metadata): what the JIT keeps.
  if (type === "code") return `code:${name.startsWith("(code for ") ? "(code for a function)" : name}`;
  return `${type}:${name.length > 60 ? name.slice(0, 57) + "..." : name}`;
};

/** Retainers of every node (reverse edges), weak edges left out. */
function retainers(h) {
  const rev = Array.from({ length: h.count }, () => []);
  for (let i = 0; i < h.count; i++) {
    for (let k = h.firstEdge[i]; k < h.firstEdge[i + 1]; k += h.E) {
      if (h.edgeTypes[h.snap.edges[k + h.e.type]] === "weak") continue;
      const to = h.snap.edges[k + h.e.to_node] / h.N;
      rev[to].push([i, k]);
    }
  }
  return rev;
}

function edgeName(h, k) {
  const type = h.edgeTypes[h.snap.edges[k + h.e.type]];
  const n = h.snap.edges[k + h.e.name_or_index];
  return type === "element" || type === "hidden" ? `[${n}]` : String(h.strings[n]);
}

/** One path from a node up towards the roots (first retainer not already on the path). */
function pathUp(h, rev, node, depth) {
  const out = [];
  const seen = new Set([node]);
  let cur = node;
  for (let d = 0; d < depth; d++) {
    const next = rev[cur].find(([from]) => !seen.has(from));
    if (!next) break;
    const [from, k] = next;
    out.push(`${label(h, from)}.${edgeName(h, k)}`);
    seen.add(from);
    cur = from;
  }
  return out;
}

const a = load(positionals[0]);
const ids = new Set();
for (let i = 0; i < a.count; i++) ids.add(a.snap.nodes[i * a.N + a.f.id]);
const totalA = sumSelf(a);
const totalsA = values.totals ? totals(a) : undefined;
a.snap = undefined;

const b = load(positionals[1]);
const groups = new Map();
for (let i = 0; i < b.count; i++) {
  if (ids.has(b.snap.nodes[i * b.N + b.f.id])) continue;
  const key = label(b, i);
  const g = groups.get(key) ?? { count: 0, self: 0, sample: i };
  g.count++;
  g.self += b.snap.nodes[i * b.N + b.f.self_size];
  groups.set(key, g);
}

/** Count and self size per constructor label. */
function totals(h) {
  const m = new Map();
  for (let i = 0; i < h.count; i++) {
    const key = label(h, i);
    const g = m.get(key) ?? { count: 0, self: 0 };
    g.count++;
    g.self += h.snap.nodes[i * h.N + h.f.self_size];
    m.set(key, g);
  }
  return m;
}

function sumSelf(h) {
  let s = 0;
  for (let i = 0; i < h.count; i++) s += h.snap.nodes[i * h.N + h.f.self_size];
  return s;
}

const top = [...groups.entries()].sort((x, y) => y[1].self - x[1].self).slice(0, Number(values.top));
const rev = retainers(b);
const newSelf = [...groups.values()].reduce((s, g) => s + g.self, 0);
process.stdout.write(`heap: ${(totalA / 1e6).toFixed(2)} MB → ${(sumSelf(b) / 1e6).toFixed(2)} MB; allocated in between and still alive: ${(newSelf / 1e6).toFixed(2)} MB in ${[...groups.values()].reduce((s, g) => s + g.count, 0)} objects\n\n`);
for (const [key, g] of top) {
  process.stdout.write(`${(g.self / 1e3).toFixed(1).padStart(9)} kB ${String(g.count).padStart(7)}×  ${key}\n`);
  process.stdout.write(`            ← ${pathUp(b, rev, g.sample, Number(values.depth)).join(" ← ")}\n`);
}
if (totalsA) {
  const totalsB = totals(b);
  const keys = new Set([...totalsA.keys(), ...totalsB.keys()]);
  const zero = { count: 0, self: 0 };
  const rows = [...keys].map((k) => ({ k, a: totalsA.get(k) ?? zero, b: totalsB.get(k) ?? zero })).map((r) => ({ ...r, d: r.b.self - r.a.self }));
  rows.sort((x, y) => Math.abs(y.d) - Math.abs(x.d));
  process.stdout.write(`\nby constructor (self size and count, first → second snapshot), largest change first:\n`);
  for (const r of rows.slice(0, Number(values.top))) {
    process.stdout.write(`${((r.d >= 0 ? "+" : "") + (r.d / 1e3).toFixed(1)).padStart(9)} kB  ${(r.a.self / 1e3).toFixed(1)} → ${(r.b.self / 1e3).toFixed(1)} kB  ${r.a.count} → ${r.b.count}×  ${r.k}\n`);
  }
}
