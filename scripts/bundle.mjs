#!/usr/bin/env node
// Bundles an app's compiled entry (dist/…) and the workspace packages it imports into dist/bundle/, so a
// command starts without resolving and linking ~100 ES modules (Node 20's loader spends ~100 ms on that).
// npm packages stay external: they are loaded from node_modules when (and only when) they are used.
// Run from the app's directory as part of its build:  node ../../scripts/bundle.mjs dist/main.js routerd
// The bundle sits at the same depth as dist/<dir>/*.js, so paths computed from import.meta.url still hold.
import { existsSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { build } from "rolldown";

const [entry, name] = process.argv.slice(2);
if (!entry || !name) {
  process.stderr.write("usage: bundle.mjs ENTRY NAME   (e.g. dist/main.js routerd)\n");
  process.exit(2);
}
if (!existsSync(entry)) {
  process.stderr.write(`bundle.mjs: ${entry} does not exist; compile first\n`);
  process.exit(1);
}
const outDir = resolve("dist/bundle");
rmSync(outDir, { recursive: true, force: true });
await build({
  input: resolve(entry),
  platform: "node",
  // Only the workspace's own packages (@routerd/*) and relative files are bundled.
  external: (id) => id.startsWith("node:") || (!id.startsWith(".") && !id.startsWith("/") && !id.startsWith("@routerd/")),
  logLevel: "warn",
  output: { dir: outDir, format: "esm", entryFileNames: `${name}.mjs`, chunkFileNames: `${name}-[name]-[hash].mjs`, comments: false },
});
