// A cache of the last validated config, keyed by the file's bytes and the schema routerd was built with.
// Parsing YAML dominates a no-op reconcile of a large config (the yaml library needs seconds for 10,000
// resources); an unchanged file skips it. Any change to the file or to routerd's kinds misses the cache.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { routerJsonSchema, type ConfigIssue, type LoadResult, type RouterConfig } from "@routerd/api";
import { writeFileAtomic } from "@routerd/resource";

const CACHE_FILE = "config-cache.json";
let schemaDigest: string | undefined;

function keyOf(text: string, file: string): string {
  schemaDigest ??= createHash("sha256").update(JSON.stringify(routerJsonSchema())).digest("hex");
  return createHash("sha256").update(schemaDigest).update("\0").update(file).update("\0").update(text).digest("hex");
}

interface CacheDocument {
  key: string;
  config: RouterConfig;
  issues: ConfigIssue[];
}

export function readCachedConfig(stateDir: string, file: string, text: string): LoadResult | undefined {
  const path = join(stateDir, CACHE_FILE);
  if (!existsSync(path)) return undefined;
  try {
    const doc = JSON.parse(readFileSync(path, "utf8")) as CacheDocument;
    return doc.key === keyOf(text, file) ? { config: doc.config, issues: doc.issues } : undefined;
  } catch {
    return undefined; // a damaged cache is just a miss
  }
}

export function writeCachedConfig(stateDir: string, file: string, text: string, config: RouterConfig, issues: ConfigIssue[]): void {
  try {
    const doc: CacheDocument = { key: keyOf(text, file), config, issues };
    writeFileAtomic(join(stateDir, CACHE_FILE), JSON.stringify(doc), 0o600);
  } catch {
    /* the cache is an optimisation; a read-only state dir just means no cache */
  }
}
