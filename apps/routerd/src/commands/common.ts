import { systemRunner, type HostContext } from "@routerd/host";
import { LedgerFormatError, LockBusyError, RouterdError, StatusFormatError, traceStage } from "@routerd/resource";
import { loadConfig, type RouterConfig } from "@routerd/api";
import type { Io, OptionSpec, OptionValues } from "@routerd/cli";
import { readFileSync } from "node:fs";
import { readCachedConfig, writeCachedConfig } from "../core/config-cache.js";
import { formatIssue } from "./validate.js";

export const CONFIG_OPTION: Record<string, OptionSpec> = {
  config: { type: "string", short: "c", valueName: "FILE", description: "router config (YAML)", complete: "file" },
};

export const SUPERVISOR_OPTION: Record<string, OptionSpec> = {
  supervisor: {
    type: "string",
    valueName: "builtin|systemd|rc.d",
    description: "who runs the daemons: serve's built-in supervisor, generated routerd-*.service units (systemd) or routerd_* rc.d scripts (rc.d, FreeBSD) (default: what serve last recorded in the state dir, else builtin)",
  },
};

export function hostContext(v: OptionValues): HostContext {
  return { root: String(v.root ?? "/"), stateDir: String(v["state-dir"]), runDir: String(v["run-dir"]), runner: systemRunner };
}

/**
 * Loads and validates the config, printing every issue. With `cache: "read"` or `"write"` an unchanged file
 * reuses the last validation from the state dir (only reconcile writes it: plan touches nothing).
 */
export function loadConfigOrExit(v: OptionValues, io: Io, cache: "off" | "read" | "write" = "off"): RouterConfig | undefined {
  const loaded = loadConfigCached(v, io, cache);
  loaded?.saveCache();
  return loaded?.config;
}

export interface LoadedConfig {
  config: RouterConfig;
  /** The file's text as read (generations store it). */
  text: string;
  path: string;
  /** Writes the validation cache; reconcile calls it while `ip -batch` runs. Does nothing when there is nothing new. */
  saveCache(): void;
}

/** As loadConfigOrExit, with the text and a deferred cache write. */
export function loadConfigCached(v: OptionValues, io: Io, cache: "off" | "read" | "write"): LoadedConfig | undefined {
  const path = v.config as string | undefined;
  if (!path) {
    io.err("--config FILE is required");
    return undefined;
  }
  const stateDir = String(v["state-dir"]);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    io.err(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return undefined;
  }
  const nothing = () => undefined;
  if (cache !== "off") {
    const hit = readCachedConfig(stateDir, path, text);
    traceStage("config cache read");
    if (hit?.config) {
      for (const i of hit.issues) io.err(formatIssue(i));
      return { config: hit.config, text, path, saveCache: nothing };
    }
  }
  const result = loadConfig(text, path);
  for (const i of result.issues) io.err(formatIssue(i));
  traceStage("config parsed and validated");
  if (!result.config) return undefined;
  const config = result.config;
  if (cache !== "write") return { config, text, path, saveCache: nothing };
  let saved = false;
  return {
    config,
    text,
    path,
    saveCache: () => {
      if (saved) return;
      saved = true;
      writeCachedConfig(stateDir, path, text, config, result.issues);
      traceStage("config cache written");
    },
  };
}

/** Errors an operator can act on are printed plainly (and as JSON with --json); others propagate. */
export function reportError(err: unknown, io: Io, json: boolean): number {
  const known = err instanceof LedgerFormatError || err instanceof LockBusyError || err instanceof StatusFormatError || err instanceof RouterdError;
  if (!known) throw err;
  const e = err as Error;
  if (json) io.out(JSON.stringify({ error: err instanceof RouterdError ? err.toJSON() : { code: e.name, message: e.message } }, null, 2));
  else io.err(`error: ${e.message}${err instanceof RouterdError && err.hint ? `\n  ${err.hint}` : ""}`);
  return 1;
}

export const COMMON_OPTIONS: Record<string, OptionSpec> = {
  "state-dir": { type: "string", default: "/var/lib/routerd", valueName: "DIR", description: "where the ledger, status and daemon state live", complete: "dir" },
  root: { type: "string", default: "/", valueName: "DIR", description: "prefix for every file routerd reads or writes (tests, images)", complete: "dir" },
  "run-dir": { type: "string", default: "/run/routerd", valueName: "DIR", description: "where daemon sockets live", complete: "dir" },
};

