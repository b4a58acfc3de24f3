#!/usr/bin/env -S node --max-semi-space-size=2
// Committed launcher so npm can link the bin before the first build. It runs the bundle the build writes
// (faster start-up), or the plain compiled modules when there is none. Unlike the mostly idle daemons, the
// resolver keeps V8's optimizing compiler: its hot path is per query. The small young generation
// (--max-semi-space-size, which only works on the command line: the shebang, and routerd serve passes it
// too) keeps the resident size down under load; bench/dns/run.mjs measures both.
import { existsSync } from "node:fs";

const bundle = new URL("../dist/bundle/routerd-dns-resolver.mjs", import.meta.url);
await import(existsSync(bundle) ? bundle.href : "../dist/main.js");
