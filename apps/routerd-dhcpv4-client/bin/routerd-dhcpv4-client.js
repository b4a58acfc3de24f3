#!/usr/bin/env node
// Committed launcher so npm can link the bin before the first build.
// V8's lite mode (no optimizing compiler) keeps this mostly idle daemon smaller; it is set before any of
// the daemon's code is loaded. ROUTERD_DHCPV4_FULL_JIT=1 turns it off. Measured by bench/dhcpv4/bound-time.mjs.
import { setFlagsFromString } from "node:v8";

if (process.env.ROUTERD_DHCPV4_FULL_JIT !== "1") setFlagsFromString("--lite-mode");
await import("../dist/main.js");
