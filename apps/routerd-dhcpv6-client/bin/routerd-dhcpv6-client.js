#!/usr/bin/env node
// Committed launcher so npm can link the bin before the first build.
// V8's lite mode (no optimizing compiler) keeps this mostly idle daemon smaller; set before any of its code
// loads. ROUTERD_DHCPV6_FULL_JIT=1 turns it off.
import { setFlagsFromString } from "node:v8";

if (process.env.ROUTERD_DHCPV6_FULL_JIT !== "1") setFlagsFromString("--lite-mode");
await import("../dist/main.js");
