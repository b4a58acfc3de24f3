// V8's old generation may grow to 1.5× what the last full collection kept instead of up to 4× (its default
// for a heap this small). A full-table load promotes short-lived garbage (chunks in flight, map backing
// stores as they grow) faster than V8 collects it; with the default the committed heap, not the data,
// set the peak RSS: 133-146 MB at 100k prefixes against 107 MB with this (docs/performance.md, BGP).
// Set here, first thing, so every launcher gets it (the bin, routerd serve, the bench); a value given on
// the command line wins. The value lives in the table of every program's V8 flags (daemon-kit's v8-flags.ts),
// as do V8's raised tier-up thresholds (the optimizing compiler for a table load's hot paths, not for every path a
// quiet router runs now and then) and ROUTERD_BGP_INTERPRETER_ONLY=1 (the interpreter alone: flat, slower loads).
import { applyV8Flags } from "@routerd/daemon-kit/v8-flags";

applyV8Flags("routerd-bgp");
