#!/usr/bin/env node
// Builds native/netlink-route.c (the batched rtnetlink route writer) into dist/native/netlink-route.node with
// the C compiler and the node-api-headers package: no node-gyp, nothing downloaded. Part of the package's
// build, as apps/routerd-dns-resolver builds its udp-batch helper. Linux only; elsewhere and without a
// compiler it says so and routerd-bgp writes the FIB through `ip -batch` (it logs why).
// ROUTERD_BGP_NATIVE_REQUIRED=1 makes a missing compiler an error (CI).
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const pkg = new URL("..", import.meta.url).pathname;
const source = join(pkg, "native/netlink-route.c");
const out = join(pkg, "dist/native/netlink-route.node");

function skip(why) {
  rmSync(out, { force: true });
  process.stderr.write(`build-native: netlink-route not built (${why}); routerd-bgp will write the FIB with ip -batch\n`);
  process.exit(process.env.ROUTERD_BGP_NATIVE_REQUIRED === "1" ? 1 : 0);
}

if (process.platform !== "linux") skip(`${process.platform} has no rtnetlink`);
let include;
try {
  include = join(dirname(createRequire(import.meta.url).resolve("node-api-headers/package.json")), "include");
} catch {
  skip("the node-api-headers package is not installed");
}
const cc = process.env.CC ?? "gcc";
mkdirSync(dirname(out), { recursive: true });
const flags = ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter", "-shared", "-fPIC", "-fvisibility=hidden"];
try {
  execFileSync(cc, [...flags, "-I", include, source, "-o", out], { stdio: ["ignore", "inherit", "inherit"] });
} catch (err) {
  if (err.code === "ENOENT") skip(`no C compiler (${cc}); install build-essential`);
  process.stderr.write(`build-native: ${cc} failed\n`);
  process.exit(1);
}
