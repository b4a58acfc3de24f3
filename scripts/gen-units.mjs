#!/usr/bin/env node
// Writes systemd/*.service and rc.d/* from packages/render (build it first). --check: exit 1 when stale.
import { existsSync, readFileSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { PROGRAMS, rcScripts, systemdUnits } from "../packages/render/dist/index.js";

const root = new URL("..", import.meta.url).pathname;
const check = process.argv.includes("--check");
let stale = 0;
const files = [
  ...[...systemdUnits(PROGRAMS)].map(([name, text]) => [join(root, "systemd", name), text, 0o644]),
  ...[...rcScripts(PROGRAMS)].map(([name, text]) => [join(root, "rc.d", name), text, 0o755]),
];
for (const [path, text, mode] of files) {
  const current = existsSync(path) ? readFileSync(path, "utf8") : undefined;
  if (current === text) continue;
  if (check) {
    console.error(`stale: ${path} (run: node scripts/gen-units.mjs)`);
    stale++;
  } else {
    writeFileSync(path, text);
    chmodSync(path, mode);
    console.log(`wrote ${path}`);
  }
}
process.exit(stale ? 1 : 0);
