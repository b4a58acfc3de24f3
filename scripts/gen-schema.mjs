#!/usr/bin/env node
// Writes docs/router.schema.json (the JSON Schema editors use through the yaml-language-server modeline)
// from the built @routerd/api. Builds it first with turbo (cached); --no-build uses dist/ as it is.
//   node scripts/gen-schema.mjs [--no-build] [--stdout]
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const SCHEMA_FILE = join(ROOT, "docs", "router.schema.json");

/** The committed text for a given @routerd/api module (built or source: tests pass the source). */
export function renderSchema(api) {
  return JSON.stringify(api.routerJsonSchema(), null, 2) + "\n";
}

/** Builds @routerd/api (and what it depends on) unless told not to, then imports the built packages. */
export async function loadBuiltPackages({ build = true } = {}) {
  if (build) {
    const turbo = join(ROOT, "node_modules", ".bin", "turbo");
    const r = spawnSync(turbo, ["run", "build", "--filter=@routerd/api", "--output-logs=errors-only"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
    if (r.status !== 0) throw new Error(`building @routerd/api failed (turbo exit ${r.status ?? r.signal})`);
  }
  const api = await import(pathToFileURL(join(ROOT, "packages", "api", "dist", "index.js")).href);
  const resource = await import(pathToFileURL(join(ROOT, "packages", "resource", "dist", "index.js")).href);
  return { api, resource };
}

export function isMain(url) {
  return process.argv[1] !== undefined && url === pathToFileURL(process.argv[1]).href;
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const { api } = await loadBuiltPackages({ build: !args.includes("--no-build") });
  const text = renderSchema(api);
  if (args.includes("--stdout")) process.stdout.write(text);
  else {
    mkdirSync(dirname(SCHEMA_FILE), { recursive: true });
    writeFileSync(SCHEMA_FILE, text);
    process.stderr.write(`gen-schema: wrote ${SCHEMA_FILE.slice(ROOT.length)}\n`);
  }
}
