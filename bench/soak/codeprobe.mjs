// Loaded into one process with `--import bench/soak/codeprobe.mjs` (the soak's serve with `run.mjs --code-probe`):
// what the process compiles over time.
// Every CODEPROBE_MS (default 30000) it appends one line to CODEPROBE_OUT (required) with V8's code and
// bytecode sizes (v8.getHeapCodeStatistics: live and not yet collected), the code spaces' used and committed
// sizes, the CPU time used so far (user + system ms), and how often, since the last line, code was built at run time and from where: `new Function`/
// `Function()`, `new RegExp`/`RegExp()` with a pattern (a literal `/x/` is compiled once per site and is not
// counted), vm.Script / vm.compileFunction. Sites are the first stack frame outside this file and node's own.
// Nothing is changed in what the process does; the wrapped constructors return what the originals return.
import { appendFileSync } from "node:fs";
import { getHeapCodeStatistics, getHeapSpaceStatistics } from "node:v8";
import vm from "node:vm";

const out = process.env.CODEPROBE_OUT;
const everyMs = Number(process.env.CODEPROBE_MS ?? 30_000);
const counts = new Map(); // "kind site" -> calls since the last line

function callSite() {
  const frames = (new Error().stack ?? "").split("\n").slice(1);
  const frame = frames.find((f) => !f.includes("codeprobe.mjs") && !f.includes("node:internal") && !/\(node:/.test(f));
  return (frame ?? "?").trim().replace(/^at /, "");
}

function count(kind) {
  const key = `${kind} ${callSite()}`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** A constructor that counts its calls (with or without `new`) and otherwise is the original. */
function counted(original, kind, when = () => true) {
  return new Proxy(original, {
    apply(target, self, args) {
      if (when(args)) count(kind);
      return Reflect.apply(target, self, args);
    },
    construct(target, args, newTarget) {
      if (when(args)) count(kind);
      return Reflect.construct(target, args, newTarget);
    },
  });
}

if (out) {
  globalThis.Function = counted(Function, "Function");
  // RegExp(existingRegExp) copies flags only; a string pattern is what compiles anew.
  globalThis.RegExp = counted(RegExp, "RegExp", (args) => typeof args[0] === "string");
  const { Script, compileFunction } = vm;
  vm.Script = counted(Script, "vm.Script");
  vm.compileFunction = counted(compileFunction, "vm.compileFunction");

  const t0 = Date.now();
  setInterval(() => {
    const code = getHeapCodeStatistics();
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics()
        .filter((s) => s.space_name.startsWith("code") || s.space_name === "old_space")
        .map((s) => [s.space_name, { used: s.space_used_size, committed: s.physical_space_size }]),
    );
    const built = Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]));
    counts.clear();
    const { user, system } = process.cpuUsage();
    appendFileSync(out, JSON.stringify({ t: Date.now() - t0, cpuMs: Math.round((user + system) / 1000), code: code.code_and_metadata_size, bytecode: code.bytecode_and_metadata_size, spaces, built }) + "\n");
  }, everyMs).unref();
}
