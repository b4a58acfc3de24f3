#!/usr/bin/env -S MALLOC_TRIM_THRESHOLD_=131072 node --max-semi-space-size=4
// Committed launcher so npm can link the bin before the first build. It runs the bundle the build writes
// (faster start-up), or the plain compiled modules when there is none. A small young generation (V8 flag,
// command line only: this shebang, and routerd serve passes it too) keeps a 100k-prefix load's peak RSS down
// (docs/performance.md, BGP). MALLOC_TRIM_THRESHOLD_: glibc gives back the top of the C heap (Soak section);
// both come from daemon-kit's v8-flags.ts, whose test checks this line.
import { existsSync } from "node:fs";

const bundle = new URL("../dist/bundle/routerd-bgp.mjs", import.meta.url);
await import(existsSync(bundle) ? bundle.href : "../dist/main.js");
