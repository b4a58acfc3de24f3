// The table of every program's V8 flags: the choice logic is pure; the launchers' shebangs must name the same
// command-line flags as the table (serve passes those when it starts a daemon); and serve's flags are checked
// for their effect in a real node process.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { INTERPRETER_ONLY, V8_FLAGS, applyV8Flags, commandLineV8Flags, flagName, programEnvironment, runtimeV8Flags, tierUpThresholdFlags } from "./v8-flags.js";

const repo = new URL("../../..", import.meta.url).pathname;

/**
 * The node releases the flags are checked on in a real process: this one, and those CI fetches
 * (ROUTERD_TEST_NODES, colon-separated paths from scripts/node-releases/fetch.sh: Node 22 and 24), because V8
 * changes what a flag set at run time does from release to release.
 */
const NODES = [process.execPath, ...(process.env.ROUTERD_TEST_NODES ?? "").split(":").filter(Boolean)].map((path) => ({
  path,
  version: existsSync(path) ? execFileSync(path, ["--version"], { encoding: "utf8" }).trim() : `missing ${path}`,
  v8: existsSync(path) ? execFileSync(path, ["-p", "process.versions.v8"], { encoding: "utf8" }).trim() : "0",
}));

/** Calls of one function before V8 first optimizes it (any optimizing tier), with `flags` set at run time. */
function callsBeforeOptimized(node: string, flags: readonly string[]): { calls: number; stderr: string } {
  const script = `
    const v8 = await import("node:v8");
    for (const f of ${JSON.stringify(flags)}) v8.setFlagsFromString(f);
    function work(a) { let s = 0; for (let i = 0; i < 20; i++) { s += (a * i) % 7; if (s > 1e9) s = 0; s ^= i << 2; s += a & 3; } return s; }
    const optimized = new Function("f", "return (%GetOptimizationStatus(f) & 16) !== 0");
    let calls = 0;
    while (calls < 1e6 && !optimized(work)) work(calls++);
    process.stdout.write(String(calls));
  `;
  // Compiling on the main thread makes "optimized" follow the call that asked for it, not a background thread.
  const run = spawnSync(node, ["--allow-natives-syntax", "--no-concurrent-recompilation", "--input-type=module", "-e", script], { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } });
  return { calls: Number(run.stdout), stderr: run.stderr };
}

/** Runs 300 small functions 400 times each in a fresh node; code and metadata bytes added (V8's own count). */
function compiledBytes(node: string, flags: readonly string[]): number {
  const script = `
    const v8 = await import("node:v8");
    for (const f of ${JSON.stringify(flags)}) v8.setFlagsFromString(f);
    const src = Array.from({ length: 300 }, (_, i) => "export function f" + i + "(a) { let s = 0; for (let j = 0; j < 5; j++) s += (a * " + i + " + j) % 7; return s; }").join("\\n");
    const before = v8.getHeapCodeStatistics().code_and_metadata_size;
    const fns = Object.values(await import("data:text/javascript," + encodeURIComponent(src)));
    let x = 0;
    for (let r = 0; r < 400; r++) {
      for (const f of fns) x += f(r);
      if (r % 50 === 0) await new Promise((ok) => setTimeout(ok, 5));
    }
    await new Promise((ok) => setTimeout(ok, 200));
    process.stdout.write(String(v8.getHeapCodeStatistics().code_and_metadata_size - before));
  `;
  return Number(execFileSync(node, ["--input-type=module", "-e", script], { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } }));
}

describe("V8 flags per program", () => {
  it("gives each program its runtime flags unless the operator chose otherwise on node's command line", () => {
    expect(runtimeV8Flags("routerd", [], {})).toEqual(INTERPRETER_ONLY);
    expect(runtimeV8Flags("routerd", ["--sparkplug", "--import=x.mjs"], {})).toEqual(INTERPRETER_ONLY.filter((f) => f !== "--no-sparkplug"));
    // Choosing the tiers on node's command line takes the interpreter-only set away as a whole (also the
    // --no-lite-mode earlier docs gave for "serve with the JIT").
    expect(runtimeV8Flags("routerd", ["--max-opt=4"], {})).toEqual([]);
    expect(runtimeV8Flags("routerd", ["--no-lite-mode"], {})).toEqual([]);
    // routerd-bgp keeps the JIT with raised tier-up thresholds, named as the running V8 release names them.
    expect(runtimeV8Flags("routerd-bgp", [], {}, "11.3.244.8-node.33")).toEqual(["--heap-growing-percent=50", "--interrupt-budget=2027520"]);
    expect(runtimeV8Flags("routerd-bgp", [], {}, "12.4.254.21-node.33")).toEqual([
      "--heap-growing-percent=50",
      "--invocation-count-for-turbofan=90000",
      "--invocation-count-for-maglev=12000",
    ]);
    expect(runtimeV8Flags("routerd-bgp", ["--heap-growing-percent=100", "--interrupt-budget=67584"], {}, "11.3.244.8")).toEqual([]);
    expect(runtimeV8Flags("routerd-bgp", [], { ROUTERD_BGP_INTERPRETER_ONLY: "1" })).toEqual(["--heap-growing-percent=50", ...INTERPRETER_ONLY]);
    expect(runtimeV8Flags("routerd-bgp", ["--max-opt=4"], { ROUTERD_BGP_INTERPRETER_ONLY: "1" }, "11.3.244.8")).toEqual(["--heap-growing-percent=50", "--interrupt-budget=2027520"]);
    expect(runtimeV8Flags("routerd-bgp", [], { ROUTERD_BGP_INTERPRETER_ONLY: "0" }, "11.3.244.8")).toEqual(["--heap-growing-percent=50", "--interrupt-budget=2027520"]);
    expect(runtimeV8Flags("routerd-healthcheck", [], {})).toEqual(INTERPRETER_ONLY);
    expect(runtimeV8Flags("routerd-healthcheck", [], { ROUTERD_HEALTHCHECK_FULL_JIT: "1" })).toEqual([]);
    expect(runtimeV8Flags("routerd-dhcpv4-client", [], { ROUTERD_DHCPV4_FULL_JIT: "0" })).toEqual(INTERPRETER_ONLY);
    expect(runtimeV8Flags("routerd-unknown", [], {})).toEqual([]);
    expect(runtimeV8Flags("routerd-dns-resolver", [], {}, "12.4.254.21")).toEqual([]);
    expect(flagName("--no_sparkplug")).toBe("sparkplug");
  });

  it("raises V8's tier-up thresholds under the names of the running V8 release", () => {
    expect(tierUpThresholdFlags(10, "11.3.244.8-node.33")).toEqual(["--interrupt-budget=675840"]);
    expect(tierUpThresholdFlags(10, "12.4.254.21-node.33")).toEqual(["--invocation-count-for-turbofan=30000", "--invocation-count-for-maglev=4000"]);
    expect(tierUpThresholdFlags(3, "13.6.233.17")).toEqual(["--invocation-count-for-turbofan=9000", "--invocation-count-for-maglev=1200"]);
  });

  it("hands each flag to V8 once", () => {
    const set: string[] = [];
    const applied = applyV8Flags("routerd", (f) => set.push(f));
    expect(set).toEqual(applied);
    expect(new Set(set).size).toBe(set.length);
  });

  it.each(Object.keys(V8_FLAGS))("%s: the launcher's shebang names the table's environment and command-line flags", (program) => {
    const launcher = program === "routerd" ? "apps/routerd/bin/routerd.js" : `apps/${program}/bin/${program}.js`;
    const shebang = readFileSync(`${repo}/${launcher}`, "utf8").split("\n")[0]!;
    const words = shebang.replace(/^#!\/usr\/bin\/env (-S )?/, "").split(" ").filter(Boolean);
    const node = words.indexOf("node");
    expect(node).toBeGreaterThanOrEqual(0);
    const env = Object.fromEntries(words.slice(0, node).map((w) => [w.slice(0, w.indexOf("=")), w.slice(w.indexOf("=") + 1)]));
    expect(env).toEqual(programEnvironment(program));
    expect(words.slice(node + 1)).toEqual(commandLineV8Flags(program));
  });

  it("gives routerd-bgp glibc's fixed trim threshold and no other program an environment of its own", () => {
    expect(programEnvironment("routerd-bgp")).toEqual({ MALLOC_TRIM_THRESHOLD_: "131072" });
    for (const program of Object.keys(V8_FLAGS).filter((p) => p !== "routerd-bgp")) expect(programEnvironment(program)).toEqual({});
    expect(programEnvironment("routerd-unknown")).toEqual({});
  });

  it("the bgp launcher's shebang really sets the variable for node (env -S)", () => {
    const launcher = `${repo}/apps/routerd-bgp/bin/routerd-bgp.js`;
    const line = readFileSync(launcher, "utf8").split("\n")[0]!.replace(/^#!/, "");
    // As the kernel runs a shebang: the interpreter, the rest of the line as one argument, then (here) `-e` code.
    const space = line.indexOf(" ");
    const out = execFileSync(line.slice(0, space), [line.slice(space + 1), "-e", "process.stdout.write(process.env.MALLOC_TRIM_THRESHOLD_ ?? '')"], { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } });
    expect(out).toBe("131072");
  });

  // --lite-mode set at run time implies --jitless, and V8 then aborts the process (a CHECK) at the first
  // WebAssembly compile: on Node 22 an ESM import of node:http compiles undici's parser, so serve died at start.
  const programsOnNodes = NODES.flatMap((node) => Object.keys(V8_FLAGS).map((program) => ({ program, node })));
  it.each(programsOnNodes)("$program on $node.version: its runtime flags leave WebAssembly and node:http usable", ({ program, node }) => {
    expect(existsSync(node.path), `${node.path} (scripts/node-releases/fetch.sh failed?)`).toBe(true);
    const script = `
      const v8 = await import("node:v8");
      for (const f of ${JSON.stringify(runtimeV8Flags(program, [], {}, node.v8))}) v8.setFlagsFromString(f);
      await import("node:http");
      const empty = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
      await WebAssembly.instantiate(await WebAssembly.compile(empty));
      process.stdout.write("usable");
    `;
    const run = spawnSync(node.path, ["--input-type=module", "-e", script], { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("usable");
  });

  // The thresholds' flags changed names in V8 12 (Node 22); V8 takes an unknown name at run time with a line on
  // stderr and nothing else, so each release is checked for the names and for their effect.
  it.each(NODES)("on $version the raised tier-up thresholds are V8's own and delay optimizing accordingly", (node) => {
    expect(existsSync(node.path), `${node.path} (scripts/node-releases/fetch.sh failed?)`).toBe(true);
    const times = 10;
    const byDefault = callsBeforeOptimized(node.path, []);
    const raised = callsBeforeOptimized(node.path, tierUpThresholdFlags(times, node.v8));
    expect(raised.stderr).toBe("");
    expect(byDefault.calls).toBeGreaterThan(0);
    expect(raised.calls).toBeGreaterThanOrEqual((byDefault.calls * times) / 2);
  }, 60_000);

  // From Node 24 on, --lite-mode and --max-opt=0 set at run time compiled as much as no flag at all.
  it.each(NODES)("on $version the interpreter-only flags leave no compiled code for the same work", (node) => {
    expect(existsSync(node.path), `${node.path} (scripts/node-releases/fetch.sh failed?)`).toBe(true);
    const withJit = compiledBytes(node.path, []);
    const interpreterOnly = compiledBytes(node.path, INTERPRETER_ONLY);
    expect(withJit).toBeGreaterThan(0);
    expect(interpreterOnly).toBeLessThan(withJit / 4);
  }, 120_000);
});
