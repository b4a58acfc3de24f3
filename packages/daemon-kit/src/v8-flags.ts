// The V8 flags of every routerd program, in one table: what each process sets on itself at start (so they hold
// however it is run: routerd.service and the daemons' units, rc.d, serve's built-in supervisor, by hand), and
// the few that V8 takes on the command line only (heap sizes: the launchers' shebangs and the command line serve
// builds for a daemon, both checked against this table by tests), and the environment the C library reads
// before any of our code runs (the launcher's shebang sets it, serve gives it to the daemon it starts).
// Figures: docs/performance.md.
import { setFlagsFromString } from "node:v8";

export interface ProgramV8Flags {
  /** Set by the process on itself first thing (they act on what is compiled and collected from then on). */
  runtime: readonly string[];
  /**
   * Whether the process also sets INTERPRETER_ONLY on itself (by default), and the environment variable that, set
   * to 1, makes the other choice (the operator's: the full JIT for a mostly idle daemon, or memory before speed).
   */
  interpreter: { byDefault: boolean; otherwiseEnv?: string };
  /**
   * When it runs the JIT: V8's thresholds for optimizing a function, this many times the default (TIER_UP_THRESHOLDS),
   * so the optimizing compilers take the code that runs hot and leave the paths a quiet process runs now and then.
   */
  tierUpThresholdsTimes?: number;
  /** Heap sizes V8 reads once at start: on node's command line (shebang, serve's daemon command line). */
  commandLine: readonly string[];
  /**
   * Environment read at exec, before any JavaScript runs (glibc's malloc settings): the launcher's shebang sets it
   * (`#!/usr/bin/env -S NAME=VALUE node ...`, so the units and rc.d scripts get it too) and serve passes it to the
   * daemon it starts; a value in serve's own environment wins there.
   */
  environment?: Readonly<Record<string, string>>;
  why: string;
}

/**
 * V8's interpreter alone: no baseline or optimizing compiler, regular expressions interpreted, size before speed.
 * Spelled out flag by flag because the short forms fail at run time, where each process sets them on itself:
 * --lite-mode implies --jitless, and V8 then aborts the process (a failed CHECK, no exception) at its first
 * WebAssembly compile, which on Node 22 every ESM `import "node:http"` makes (undici's HTTP parser); and from
 * Node 24 on, neither --lite-mode nor --max-opt=0 changes anything once V8 has started (their implications are
 * applied at start only), while these flags hold on Node 20, 22 and 24.
 */
export const INTERPRETER_ONLY: readonly string[] = ["--no-turbofan", "--no-maglev", "--no-sparkplug", "--regexp-interpret-all", "--optimize-for-size"];

/**
 * V8's own thresholds for handing a function to an optimizing compiler, by release: up to V8 11 (Node 20) one budget
 * of bytecode a function executes between V8's looks at it (66 KiB); from V8 12 (Node 22) a count per tier. The
 * values are V8's defaults; a program's `tierUpThresholdsTimes` multiplies them.
 */
export const TIER_UP_THRESHOLDS: readonly { fromV8Major: number; defaults: Readonly<Record<string, number>> }[] = [
  { fromV8Major: 12, defaults: { "invocation-count-for-turbofan": 3000, "invocation-count-for-maglev": 400 } },
  { fromV8Major: 0, defaults: { "interrupt-budget": 66 * 1024 } },
];

/** The flags that raise V8's tier-up thresholds `times`-fold on the V8 release `v8Version` (process.versions.v8). */
export function tierUpThresholdFlags(times: number, v8Version: string = process.versions.v8): string[] {
  const major = Number.parseInt(v8Version, 10);
  const release = TIER_UP_THRESHOLDS.find((r) => major >= r.fromV8Major)!;
  return Object.entries(release.defaults).map(([name, value]) => `--${name}=${value * times}`);
}

export const V8_FLAGS: Readonly<Record<string, ProgramV8Flags>> = {
  routerd: {
    runtime: [],
    interpreter: { byDefault: true },
    commandLine: [],
    why:
      "serve works in bursts (a reconcile, a status call): TurboFan and Sparkplug compiled its rarely-run paths one " +
      "by one for hours (code pages +1–4 MB/h) for no CPU saved; in the interpreter it holds ~10 MB less and uses " +
      "no more CPU.",
  },
  "routerd-bgp": {
    runtime: ["--heap-growing-percent=50"],
    commandLine: ["--max-semi-space-size=4"],
    // A fixed trim threshold: glibc gives the top of its heap back once 128 KiB are free there. By default the
    // threshold follows the largest block freed (up to 64 MiB), so after a table load's large buffers routerd-bgp
    // kept its C heap for good: +1.6–2.7 MB/h of RSS in the soak (Soak section).
    environment: { MALLOC_TRIM_THRESHOLD_: "131072" },
    // Keeps the full JIT for a full table's load, which runs its hot paths hundreds of thousands of times; with
    // V8's thresholds ×30 the optimizing compiler no longer takes the paths a quiet router runs now and then one
    // by one for hours (code pages +0.5 MB/h, RSS +1.5–2.5 MB/h in the soak); the load costs 0–15% more CPU
    // (Soak section, session 13). The interpreter alone is the operator's choice: flat memory and ~2.4 MB less,
    // a 100k-prefix load ~67% slower (session 12).
    interpreter: { byDefault: false, otherwiseEnv: "ROUTERD_BGP_INTERPRETER_ONLY" },
    tierUpThresholdsTimes: 30,
    why: "a 100k-prefix table load: the committed heap, not the data, set the peak RSS (BGP section); the C heap kept after it (Soak section)",
  },
  "routerd-dns-resolver": {
    runtime: [],
    interpreter: { byDefault: false },
    commandLine: ["--max-semi-space-size=2"],
    why: "keeps the full JIT (its hot path is per query); a small young generation keeps RSS down under load",
  },
  "routerd-dhcpv4-client": { runtime: [], interpreter: { byDefault: true, otherwiseEnv: "ROUTERD_DHCPV4_FULL_JIT" }, commandLine: [], why: "mostly idle: no optimizing compiler (bench/dhcpv4/bound-time.mjs)" },
  "routerd-dhcpv6-client": { runtime: [], interpreter: { byDefault: true, otherwiseEnv: "ROUTERD_DHCPV6_FULL_JIT" }, commandLine: [], why: "mostly idle: no optimizing compiler" },
  "routerd-healthcheck": { runtime: [], interpreter: { byDefault: true, otherwiseEnv: "ROUTERD_HEALTHCHECK_FULL_JIT" }, commandLine: [], why: "mostly idle: ~10 MB smaller without the optimizing compiler (bench/healthcheck/rss.mjs)" },
};

/** A flag's name without --/--no- and value, e.g. "sparkplug" for --no-sparkplug, "heap-growing-percent". */
export const flagName = (flag: string): string => flag.replace(/=.*$/, "").replace(/_/g, "-").replace(/^--(no-)?/, "");

/** Flags on node's command line that choose the tiers themselves: INTERPRETER_ONLY then stays off as a whole. */
const TIER_CHOICES: ReadonlySet<string> = new Set(["max-opt", "lite-mode", "jitless"]);

/**
 * The runtime flags `program` sets on itself: the table's, then INTERPRETER_ONLY when it runs in the interpreter
 * (its default, or the other way when its variable is 1; never when the operator chose the tiers on node's command
 * line: `node --max-opt=4 …`, or the `--no-lite-mode` of earlier docs) or else its raised tier-up thresholds for
 * the V8 release `v8Version`, less any flag the operator named on node's command line (their choice wins:
 * `node --sparkplug routerd.js serve`, `node --interrupt-budget=67584 routerd-bgp.js`).
 */
export function runtimeV8Flags(
  program: string,
  execArgv: readonly string[] = process.execArgv,
  env: NodeJS.ProcessEnv = process.env,
  v8Version: string = process.versions.v8,
): string[] {
  const spec = V8_FLAGS[program];
  if (!spec) return [];
  const chosen = new Set(execArgv.filter((a) => a.startsWith("--")).map(flagName));
  const { byDefault, otherwiseEnv } = spec.interpreter;
  const switched = otherwiseEnv !== undefined && env[otherwiseEnv] === "1";
  const interpreter = byDefault !== switched && ![...TIER_CHOICES].some((f) => chosen.has(f));
  const tiers = interpreter ? INTERPRETER_ONLY : spec.tierUpThresholdsTimes ? tierUpThresholdFlags(spec.tierUpThresholdsTimes, v8Version) : [];
  return [...spec.runtime, ...tiers].filter((f) => !chosen.has(flagName(f)));
}

/** Sets `program`'s runtime flags on this process; returns those it set. */
export function applyV8Flags(program: string, set: (flag: string) => void = setFlagsFromString): string[] {
  const flags = runtimeV8Flags(program);
  for (const flag of flags) set(flag);
  return flags;
}

/** The command-line flags serve gives node when it starts `program` (the launcher's shebang names the same). */
export function commandLineV8Flags(program: string): string[] {
  return [...(V8_FLAGS[program]?.commandLine ?? [])];
}

/** The environment `program` needs at exec (its launcher's shebang names the same). */
export function programEnvironment(program: string): Record<string, string> {
  return { ...(V8_FLAGS[program]?.environment ?? {}) };
}
