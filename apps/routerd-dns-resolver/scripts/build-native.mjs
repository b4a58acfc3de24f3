#!/usr/bin/env node
// Builds native/udp-batch.c (the recvmmsg/sendmmsg UDP helper) into dist/native/udp-batch.node with the C
// compiler and the node-api-headers package: no node-gyp, nothing downloaded. Part of the package's build.
// Linux only; elsewhere (FreeBSD) and without a compiler it says so and the resolver uses node:dgram
// (reported in its status). ROUTERD_DNS_NATIVE_REQUIRED=1 makes a missing compiler an error (CI).
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const pkg = new URL("..", import.meta.url).pathname;
const source = join(pkg, "native/udp-batch.c");
const out = join(pkg, "dist/native/udp-batch.node");
const required = process.env.ROUTERD_DNS_NATIVE_REQUIRED === "1";

function skip(why) {
  rmSync(out, { force: true });
  const line = `build-native: udp-batch not built (${why}); routerd-dns-resolver will use node:dgram`;
  if (required) {
    process.stderr.write(`${line}\n`);
    process.exit(1);
  }
  process.stderr.write(`${line}\n`);
  process.exit(0);
}

if (process.platform !== "linux") skip(`${process.platform} has no recvmmsg/sendmmsg path`);
let include;
try {
  include = join(dirname(createRequire(import.meta.url).resolve("node-api-headers/package.json")), "include");
} catch {
  skip("the node-api-headers package is not installed");
}
const cc = process.env.CC ?? "gcc";
mkdirSync(dirname(out), { recursive: true });
try {
  execFileSync(cc, ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter", "-shared", "-fPIC", "-fvisibility=hidden", "-I", include, source, "-o", out, "-lpthread"], { stdio: ["ignore", "inherit", "inherit"] });
} catch (err) {
  if (err.code === "ENOENT") skip(`no C compiler (${cc}); install build-essential`);
  process.stderr.write(`build-native: ${cc} failed\n`);
  process.exit(1);
}
