// serve's JavaScript runs in bursts: a reconcile on a config change, a health transition or every --interval,
// a status call now and then. V8's baseline compiler (Sparkplug) gives every function that has run a little
// machine code of its own and keeps it for good (V8 flushes baseline code only with --flush-baseline-code),
// and rarely-run paths (failover, a session reset, a config reload) reach its threshold one by one. In the
// soak it was most of serve's code pages (~2.3 of ~3 MB) and part of their growth, for no CPU time saved
// (docs/performance.md, "Soak"): the interpreter runs the bursts, TurboFan still optimizes what is hot.
import { setFlagsFromString } from "node:v8";

/** V8 flags serve sets on itself at start (they act on what is compiled from then on). */
export const SERVE_V8_FLAGS = ["--no-sparkplug"] as const;

/** The flag's name without --/--no-, e.g. "sparkplug". */
const flagName = (flag: string): string => flag.replace(/^--(no-)?/, "").replace(/=.*$/, "").replace(/_/g, "-");

/**
 * The flags to set: SERVE_V8_FLAGS except those the operator already chose on node's command line (their
 * choice wins, e.g. `node --sparkplug routerd.js serve` to compare; node refuses these flags in NODE_OPTIONS).
 */
export function serveV8Flags(execArgv: readonly string[] = process.execArgv): string[] {
  const chosen = new Set(execArgv.filter((a) => a.startsWith("--")).map(flagName));
  return SERVE_V8_FLAGS.filter((f) => !chosen.has(flagName(f)));
}

/** Sets serve's V8 flags on this process; returns those it set. */
export function applyServeV8Flags(set: (flag: string) => void = setFlagsFromString): string[] {
  const flags = serveV8Flags();
  for (const flag of flags) set(flag);
  return flags;
}
