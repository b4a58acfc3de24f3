#!/usr/bin/env node
// CI check: regenerates docs/router.schema.json and docs/reference/kinds.md in memory from the built
// packages and exits 1 when a committed file differs (stale). --no-build uses dist/ as it is.
import { readFileSync } from "node:fs";
import { renderKindsDoc, KINDS_DOC } from "./gen-docs.mjs";
import { ROOT, SCHEMA_FILE, loadBuiltPackages, renderSchema } from "./gen-schema.mjs";

const { api, resource } = await loadBuiltPackages({ build: !process.argv.includes("--no-build") });
const targets = [
  { path: SCHEMA_FILE, fresh: renderSchema(api), fix: "node scripts/gen-schema.mjs" },
  {
    path: KINDS_DOC,
    fresh: renderKindsDoc({ KINDS: api.KINDS, routerJsonSchema: api.routerJsonSchema, teardownRegistry: resource.teardownRegistry }),
    fix: "node scripts/gen-docs.mjs",
  },
];

let stale = 0;
for (const t of targets) {
  const rel = t.path.slice(ROOT.length);
  let committed;
  try {
    committed = readFileSync(t.path, "utf8");
  } catch {
    committed = undefined;
  }
  if (committed === t.fresh) {
    process.stderr.write(`check-schema: ${rel} is up to date\n`);
    continue;
  }
  stale++;
  if (committed === undefined) {
    process.stderr.write(`check-schema: ${rel} is missing; run \`${t.fix}\` and commit the result\n`);
    continue;
  }
  const a = committed.split("\n");
  const b = t.fresh.split("\n");
  let line = 0;
  while (line < a.length && line < b.length && a[line] === b[line]) line++;
  process.stderr.write(
    `check-schema: ${rel} is stale (first difference at line ${line + 1}); run \`${t.fix}\` and commit the result\n` +
      `  committed: ${a[line] ?? "<end of file>"}\n  generated: ${b[line] ?? "<end of file>"}\n`,
  );
}
process.exit(stale === 0 ? 0 : 1);
