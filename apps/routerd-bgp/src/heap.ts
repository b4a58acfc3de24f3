// V8's old generation may grow to 1.5× what the last full collection kept instead of up to 4× (its default
// for a heap this small). A full-table load promotes short-lived garbage (chunks in flight, map backing
// stores as they grow) faster than V8 collects it; with the default the committed heap, not the data,
// set the peak RSS: 133-146 MB at 100k prefixes against 107 MB with this (docs/performance.md, BGP).
// Set here, first thing, so every launcher gets it (the bin, routerd serve, the bench); a value given on
// the command line wins.
import { setFlagsFromString } from "node:v8";

export const HEAP_GROWING_PERCENT = 50;

if (!process.execArgv.some((a) => a.startsWith("--heap-growing-percent"))) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
