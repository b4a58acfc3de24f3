// Loaded into serve and every daemon with `--import bench/soak/v8flags.mjs` in NODE_OPTIONS (run.mjs --v8-flags):
// sets V8 flags on the process before its own code loads, to compare flags in the soak without a build.
// SOAK_V8_FLAGS applies to every process, SOAK_V8_FLAGS_<PROGRAM> (e.g. SOAK_V8_FLAGS_ROUTERD_DNS_RESOLVER,
// SOAK_V8_FLAGS_ROUTERD for serve) to one. Only flags V8 reads after start-up take effect this way (not the heap
// sizes, which node takes on its command line only).
import { basename } from "node:path";
import { setFlagsFromString } from "node:v8";

const program = basename(process.argv[1] ?? "", ".js").toUpperCase().replace(/-/g, "_");
const flags = `${process.env.SOAK_V8_FLAGS ?? ""} ${process.env[`SOAK_V8_FLAGS_${program}`] ?? ""}`.split(" ").filter(Boolean);
for (const flag of flags) setFlagsFromString(flag);
