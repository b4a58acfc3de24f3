#!/usr/bin/env node
// Committed launcher so npm can link the bin before the first build. It runs the bundle the build writes
// (one file instead of dozens of modules: the client sends its first DISCOVER sooner), or the plain
// compiled modules when there is none.
// V8's interpreter alone (no baseline or optimizing compiler) keeps this mostly idle daemon smaller; it is set
// before any of the daemon's code is loaded. ROUTERD_DHCPV4_FULL_JIT=1 turns it off. Measured by
// bench/dhcpv4/bound-time.mjs.
import { existsSync } from "node:fs";
import { applyV8Flags } from "@routerd/daemon-kit/v8-flags";

applyV8Flags("routerd-dhcpv4-client"); // the interpreter alone: INTERPRETER_ONLY in daemon-kit's v8-flags.ts
const bundle = new URL("../dist/bundle/routerd-dhcpv4-client.mjs", import.meta.url);
await import(existsSync(bundle) ? bundle.href : "../dist/main.js");
