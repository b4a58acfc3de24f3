#!/usr/bin/env node
// Committed launcher so npm can link the bin before the first build. It runs the bundle the build writes
// (faster start-up), or the plain compiled modules when there is none. pppd's hooks run this program too
// (`routerd-pppoe-client hook ...`): that path loads no gRPC library, so a hook costs one bare Node start.
import { existsSync } from "node:fs";

const bundle = new URL("../dist/bundle/routerd-pppoe-client.mjs", import.meta.url);
await import(existsSync(bundle) ? bundle.href : "../dist/main.js");
