import { readFileSync } from "node:fs";
import type { VersionInfo } from "@routerd/cli";

/** The app's package.json: dist/<dir>/*.js and the bundle in dist/bundle/ sit at the same depth. */
export function programVersion(program: string): VersionInfo {
  let version = "unknown";
  try {
    version = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    /* a copied binary without its package.json still runs */
  }
  return { program, version, node: process.version, platform: `${process.platform} ${process.arch}` };
}
