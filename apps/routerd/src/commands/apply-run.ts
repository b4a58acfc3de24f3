// What `routerd apply` and `routerd reconcile --once` share: one engine, one output, one set of exit codes.
import { durationMs, type RouterConfig } from "@routerd/api";
import type { Io, OptionSpec, OptionValues } from "@routerd/cli";
import { GenerationStore, parseKeep, RouterdError, traceStage } from "@routerd/resource";
import { planOnly, type EngineOptions } from "../core/engine.js";
import { planToJson, planToText, resultsToText } from "../core/format.js";
import { armConfirmation, describeWindow, startWindow } from "../generations/confirm.js";
import { readPending, refuseWhilePending, type PendingConfirmation } from "../generations/pending.js";
import { reconcileAndRecord, type ConfigSource, type Recorded } from "../generations/record.js";
import { plainReconcile, revertIfDue, revertToText, type RevertOutcome } from "../generations/revert.js";
import { COMMON_OPTIONS, CONFIG_OPTION, SUPERVISOR_OPTION, hostContext, loadConfigCached, reportError } from "./common.js";
import { checkSupervisorHost, parseSupervisorMode, recordSupervisorMode } from "../core/supervisor-mode.js";

export const KEEP_OPTION: Record<string, OptionSpec> = {
  "keep-generations": { type: "string", default: "20", valueName: "N", description: "config generations kept under <state-dir>/generations (the newest N)" },
};

export const APPLY_OPTIONS: Record<string, OptionSpec> = {
  ...CONFIG_OPTION,
  once: { type: "boolean", description: "run one reconcile and exit (`routerd serve` runs the loop)" },
  "dry-run": { type: "boolean", description: "print the plan; change nothing" },
  json: { type: "boolean", description: "machine-readable output" },
  "allow-empty": { type: "boolean", description: "allow cleanup when the config has no resources" },
  "install-packages": { type: "boolean", description: "install the OS packages the config needs first (apt; plan shows them; never uninstalls)" },
  "confirm-within": { type: "string", valueName: "DURATION", description: "revert to the previous generation unless `routerd confirm` follows within DURATION (e.g. 120s)" },
  wait: { type: "boolean", description: "with --confirm-within: stay until confirmed (Enter on a terminal, or `routerd confirm`) or reverted" },
  ...SUPERVISOR_OPTION,
  ...KEEP_OPTION,
  ...COMMON_OPTIONS,
};

export const APPLY_EXIT_CODES = {
  0: "applied (or, with --dry-run, planned); with --wait: confirmed",
  1: "invalid config, refused (a change waits for confirmation), or a step failed",
  3: "with --wait: not confirmed in time, the previous generation was restored",
} as const;

/** Applies `config` (from `source`) and prints the report; the shared tail of apply, reconcile and rollback. */
export async function applyAndReport(config: RouterConfig, source: ConfigSource, v: OptionValues, io: Io, extra: Partial<EngineOptions> = {}): Promise<number> {
  const host = hostContext(v);
  const json = Boolean(v.json);
  const supervisor = v.supervisor !== undefined ? parseSupervisorMode(v.supervisor) : undefined;
  if (supervisor && !v["dry-run"]) checkSupervisorHost(supervisor, host.root);
  const opts: EngineOptions = { host, allowEmpty: Boolean(v["allow-empty"]), installPackages: Boolean(v["install-packages"]), ...(supervisor ? { supervisor } : {}), ...extra };
  if (v["dry-run"]) {
    const run = await planOnly(config, opts, host.stateDir);
    io.out(json ? JSON.stringify(planToJson(run.plan, { dryRun: true }), null, 2) : planToText(run.plan));
    return 0;
  }
  if (supervisor) recordSupervisorMode(host.stateDir, supervisor);
  const withinMs = confirmWindow(v["confirm-within"]);
  const keep = parseKeep(v["keep-generations"]);
  refuseWhilePending(host.stateDir);
  const armed = withinMs !== undefined ? armConfirmation(host, { text: source.text, path: source.path ?? "", withinMs, command: source.command }, keep) : undefined;
  const pending = armed && "pending" in armed ? armed.pending : undefined;

  const revertNow = (reason: string) => revertIfDue({ stateDir: host.stateDir, command: source.command, keep, reconcile: plainReconcile(host) }, { force: true, reason });
  let applied: Awaited<ReturnType<typeof reconcileAndRecord>>;
  try {
    applied = await reconcileAndRecord(config, source, opts, keep);
  } catch (err) {
    // The apply may have changed part of the host before it failed: restore now (the watchdog would, later).
    if (pending) await revertNow(`revert: the apply under confirmation failed (${(err as Error).message})`).catch(() => undefined);
    throw err;
  }
  const { result, recorded } = applied;
  let window: PendingConfirmation | undefined;
  let reverted: RevertOutcome | undefined;
  if (pending && recorded) window = startWindow(host.stateDir, pending.id, recorded);
  else if (pending) reverted = await revertNow("revert: the apply under confirmation failed");

  if (json) {
    io.out(
      JSON.stringify(
        planToJson(result.plan, {
          results: result.results,
          ok: result.ok,
          ...(recorded ? { generation: { number: recorded.generation, created: recorded.created, digest: recorded.digest } } : {}),
          ...(window ? { pendingConfirmation: pendingJson(window) } : {}),
          ...(reverted ? { reverted: { to: reverted.to, reason: reverted.reason, ok: reverted.result.ok } } : {}),
        }),
        null,
        2,
      ),
    );
  } else {
    io.out(planToText(result.plan));
    io.out(resultsToText(result.results));
    if (recorded) io.out(generationLine(recorded));
    if (armed && "unchanged" in armed) io.out(`Nothing to confirm: the config is generation ${armed.unchanged.generation} already.`);
    if (window) io.out(describeWindow(window));
    if (reverted) io.out(`The apply failed, so the change was reverted at once.\n${revertToText(reverted)}`);
  }
  traceStage("report printed");
  if (!result.ok) return 1;
  if (window && v.wait) return waitForConfirmation(host.stateDir, window, io);
  return 0;
}

function generationLine(r: Recorded): string {
  return r.created ? `Recorded generation ${r.generation} (${r.digest.slice(0, 19)}).` : `The config is generation ${r.generation} already; no new generation.`;
}

export function pendingJson(p: PendingConfirmation): Record<string, unknown> {
  return { generation: p.generation, revertTo: p.revertTo, deadline: p.deadline, withinMs: p.withinMs, appliedBy: p.appliedBy, ...(p.watchdogPid ? { watchdogPid: p.watchdogPid } : {}) };
}

function confirmWindow(value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  let ms: number;
  try {
    ms = durationMs(String(value));
  } catch {
    ms = Number.NaN;
  }
  if (!Number.isFinite(ms) || ms < 1000) throw new RouterdError("InvalidOption", `--confirm-within ${String(value)} is not a duration of at least 1s`, { hint: "for example --confirm-within 120s or --confirm-within 5m" });
  return ms;
}

/** --wait: until `routerd confirm` (or Enter on a terminal) or the revert. Exit 0 confirmed, 3 reverted. */
async function waitForConfirmation(stateDir: string, p: PendingConfirmation, io: Io): Promise<number> {
  const tty = process.stdin.isTTY;
  let onData: (() => void) | undefined;
  if (tty) {
    io.out("Press Enter to confirm.");
    const { confirmPending } = await import("../generations/confirm.js");
    onData = () => void confirmPending(stateDir);
    process.stdin.on("data", onData);
  }
  try {
    while (readPending(stateDir)?.id === p.id) await new Promise((r) => setTimeout(r, 200));
  } finally {
    if (onData) {
      process.stdin.off("data", onData);
      process.stdin.pause();
    }
  }
  const state = p.generation !== undefined ? new GenerationStore(stateDir).get(p.generation)?.confirmation?.state : undefined;
  if (state === "confirmed") {
    io.out(`Confirmed: generation ${p.generation} stays.`);
    return 0;
  }
  io.out(`Not confirmed in time: the previous generation was restored (routerd rollback --list).`);
  return 3;
}

/** `apply` and `reconcile --once` from a config file. */
export async function runApply(verb: "apply" | "reconcile", v: OptionValues, io: Io): Promise<number> {
  if (verb === "reconcile" && !v.once) {
    io.err("reconcile needs --once (use `routerd serve` for the continuous loop)");
    return 1;
  }
  if (v.wait && !v["confirm-within"]) {
    io.err("--wait needs --confirm-within DURATION");
    return 1;
  }
  const loaded = loadConfigCached(v, io, v["dry-run"] ? "read" : "write");
  if (!loaded) return 1;
  try {
    const code = await applyAndReport(loaded.config, { text: loaded.text, path: loaded.path, command: `routerd ${verb}` }, v, io, { whileApplying: loaded.saveCache });
    loaded.saveCache(); // when nothing was applied
    return code;
  } catch (err) {
    return reportError(err, io, Boolean(v.json));
  }
}
