#!/usr/bin/env node
// CI check: systemd/ and rc.d/ match what scripts/gen-units.mjs renders (build packages/render first).
process.argv.push("--check");
await import("./gen-units.mjs");
