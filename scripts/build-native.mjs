#!/usr/bin/env node
// Builds a package's native helper (native/<name>.c) into dist/native/<name>.node with the C compiler and the
// node-api-headers package: no node-gyp, nothing downloaded. Part of the package's build (run in the package's
// directory). Linux only; elsewhere, or without a compiler, it says so and the program uses its fallback (it
// logs and reports which). <REQUIRED_ENV>=1 makes a missing compiler or platform an error (for CI).
// Usage: node ../../scripts/build-native.mjs NAME --fallback "what runs instead" --required-env VAR [--lib L]...
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { fallback: { type: "string" }, "required-env": { type: "string" }, lib: { type: "string", multiple: true, default: [] } },
});
const [name] = positionals;
if (!name || !values.fallback || !values["required-env"]) {
  process.stderr.write('usage: build-native.mjs NAME --fallback "what runs instead" --required-env VAR [--lib L]...\n');
  process.exit(2);
}
const pkg = process.cwd();
const source = join(pkg, `native/${name}.c`);
const out = join(pkg, `dist/native/${name}.node`);

function skip(why) {
  rmSync(out, { force: true });
  process.stderr.write(`build-native: ${name} not built (${why}); ${values.fallback}\n`);
  process.exit(process.env[values["required-env"]] === "1" ? 1 : 0);
}

if (process.platform !== "linux") skip(`${process.platform}: the helper is Linux-only`);
let include;
try {
  include = join(dirname(createRequire(join(pkg, "package.json")).resolve("node-api-headers/package.json")), "include");
} catch {
  skip("the node-api-headers package is not installed");
}
const cc = process.env.CC ?? "gcc";
mkdirSync(dirname(out), { recursive: true });
const flags = ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter", "-shared", "-fPIC", "-fvisibility=hidden"];
try {
  execFileSync(cc, [...flags, "-I", include, source, "-o", out, ...values.lib.map((l) => `-l${l}`)], { stdio: ["ignore", "inherit", "inherit"] });
} catch (err) {
  if (err.code === "ENOENT") skip(`no C compiler (${cc}); install build-essential`);
  process.stderr.write(`build-native: ${cc} failed\n`);
  process.exit(1);
}
