// Owns the running probes: applies a config (add, remove, retarget, retime without disturbing the
// others), feeds results through each probe's state machine, and reports: status resources (phase =
// state), healthcheck.transition events, and the machines saved to state.json so a restart resumes them.
import { Operation, type DaemonContext } from "@routerd/daemon-kit";
import type { HealthcheckConfig, ProbeConfig } from "./config.js";
import { decodePersisted, encodePersisted, probeFingerprint, type PersistedProbe } from "./persist.js";
import { DEFAULT_PROBES, type ProbeRegistry } from "./probes/registry.js";
import { ProbeRunner, type ProbeResultRecord } from "./runner.js";
import { publishProbe, publishRunnable } from "./probe-status.js";
import { initialMachine, isUsable, resetMachine, stepMachine, type Machine, type Transition } from "./state-machine.js";
import { transitionEvent } from "./transition-event.js";
import type { VerdictFiles } from "./verdicts.js";

const LOCAL_ERROR = "LocalError";

export interface ProbeCounters {
  consecutiveSuccesses: number;
  consecutiveFailures: number;
  totalSuccesses: number;
  totalFailures: number;
}

export interface ProbeView {
  name: string;
  config: ProbeConfig;
  machine: Machine;
  usable: boolean;
  counters: ProbeCounters;
  lastResult?: ProbeResultRecord;
  /** Oldest first. */
  history: ProbeResultRecord[];
  resumed: boolean;
}

export interface ApplySummary {
  added: string[];
  removed: string[];
  /** What they probe changed: state starts over. */
  retargeted: string[];
  /** Only interval, timeout or thresholds changed: state kept. */
  retimed: string[];
  unchanged: string[];
}

export type ManagerContext = Pick<DaemonContext, "status" | "events" | "state" | "logger" | "trace">;

export interface ManagerOptions {
  ctx: ManagerContext;
  probes?: ProbeRegistry;
  now?: () => Date;
  /** Results kept per probe. Default 20. */
  historySize?: number;
  /** Spacing of new probes' first attempts, so a config of many probes does not fire at once. Default 25 ms. */
  staggerMs?: number;
  graceMs?: number;
  /** Also keep each probe's state in a file of its own (read by keepalived's VRRP tracking). */
  verdicts?: VerdictFiles;
}

interface Entry {
  config: ProbeConfig;
  fingerprint: string;
  runner: ProbeRunner;
  machine: Machine;
  message: string;
  totals: { successes: number; failures: number };
  history: ProbeResultRecord[];
  resumed: boolean;
}

export class ProbeManager {
  private readonly entries = new Map<string, Entry>();
  private restored: Map<string, PersistedProbe> | undefined;
  private readonly ctx: ManagerContext;
  private readonly probes: ProbeRegistry;
  private readonly now: () => Date;
  private readonly localErrors = new Map<string, string>();

  constructor(private readonly options: ManagerOptions) {
    this.ctx = options.ctx;
    this.probes = options.probes ?? DEFAULT_PROBES;
    this.now = options.now ?? (() => new Date());
    this.restored = decodePersisted(this.ctx.state.data);
  }

  apply(config: HealthcheckConfig): ApplySummary {
    const summary: ApplySummary = { added: [], removed: [], retargeted: [], retimed: [], unchanged: [] };
    const wanted = new Map(config.probes.map((p) => [p.name, p]));
    for (const [name, entry] of this.entries) {
      if (wanted.has(name)) continue;
      entry.runner.stop();
      this.entries.delete(name);
      this.localErrors.delete(name);
      this.options.verdicts?.remove(name);
      summary.removed.push(name);
    }
    // Resources restored from state.json for probes that no longer exist.
    for (const r of this.ctx.status.resources()) if (!wanted.has(r.name)) this.ctx.status.removeResource(r.name);

    let fresh = 0;
    for (const probe of config.probes) {
      const entry = this.entries.get(probe.name);
      const fingerprint = probeFingerprint(probe);
      if (entry === undefined) {
        this.add(probe, fingerprint, fresh++ * (this.options.staggerMs ?? 25));
        summary.added.push(probe.name);
      } else if (entry.fingerprint !== fingerprint) {
        this.retarget(entry, probe, fingerprint);
        summary.retargeted.push(probe.name);
      } else if (JSON.stringify(entry.config) !== JSON.stringify(probe)) {
        entry.config = probe;
        entry.runner.update(probe);
        this.publish(probe.name, entry);
        summary.retimed.push(probe.name);
      } else {
        summary.unchanged.push(probe.name);
      }
    }
    this.restored = undefined;
    this.updateLocalErrors();
    this.persist();
    return summary;
  }

  stop(): void {
    for (const entry of this.entries.values()) entry.runner.stop();
  }

  list(includeHistory = false): ProbeView[] {
    return [...this.entries.keys()].sort().map((name) => this.view(name, includeHistory)!);
  }

  get(name: string, includeHistory = true): ProbeView | undefined {
    return this.view(name, includeHistory);
  }

  private view(name: string, includeHistory: boolean): ProbeView | undefined {
    const e = this.entries.get(name);
    if (e === undefined) return undefined;
    const lastResult = e.history.at(-1);
    return {
      name,
      config: e.config,
      machine: { ...e.machine },
      usable: isUsable(e.machine.state),
      counters: {
        consecutiveSuccesses: e.machine.consecutiveSuccesses,
        consecutiveFailures: e.machine.consecutiveFailures,
        totalSuccesses: e.totals.successes,
        totalFailures: e.totals.failures,
      },
      ...(lastResult !== undefined ? { lastResult } : {}),
      history: includeHistory ? [...e.history] : [],
      resumed: e.resumed,
    };
  }

  private add(probe: ProbeConfig, fingerprint: string, delayMs: number): void {
    const saved = this.restored?.get(probe.name);
    const resumed = saved !== undefined && saved.fingerprint === fingerprint;
    const machine = resumed ? saved.machine : initialMachine(this.now(), saved === undefined ? "Started" : "ConfigChanged");
    const entry: Entry = {
      config: probe,
      fingerprint,
      runner: this.makeRunner(probe),
      machine,
      message: resumed ? `resumed ${machine.state} (${machine.reason})` : "no result yet",
      totals: { successes: 0, failures: 0 },
      history: [],
      resumed,
    };
    this.entries.set(probe.name, entry);
    // Its target changed while the daemon was down: the world last heard the old state, so say it is gone.
    if (saved !== undefined && !resumed && saved.machine.state !== "Unknown") {
      this.emitTransition(probe.name, entry, { from: saved.machine.state, to: "Unknown", reason: "ConfigChanged", at: machine.since }, "");
    }
    this.publish(probe.name, entry);
    if (resumed) this.ctx.logger.info({ probe: probe.name, state: machine.state, since: machine.since }, "probe state resumed");
    entry.runner.start(delayMs);
  }

  private retarget(entry: Entry, probe: ProbeConfig, fingerprint: string): void {
    entry.runner.stop();
    const step = resetMachine(entry.machine, "ConfigChanged", this.now());
    Object.assign(entry, {
      config: probe,
      fingerprint,
      runner: this.makeRunner(probe),
      machine: step.machine,
      message: "target changed: no result yet",
      totals: { successes: 0, failures: 0 },
      history: [],
      resumed: false,
    });
    this.localErrors.delete(probe.name);
    if (step.transition) this.emitTransition(probe.name, entry, step.transition, "");
    this.publish(probe.name, entry);
    entry.runner.start(0);
  }

  private makeRunner(probe: ProbeConfig): ProbeRunner {
    const runner: ProbeRunner = new ProbeRunner(probe, {
      probe: this.probes[probe.type],
      now: this.now,
      ...(this.options.graceMs !== undefined ? { graceMs: this.options.graceMs } : {}),
      onResult: (result) => this.onResult(probe.name, runner, result),
      onError: (err) => this.ctx.logger.error({ err, probe: probe.name }, "probe result handling failed"),
    });
    return runner;
  }

  private onResult(name: string, runner: ProbeRunner, result: ProbeResultRecord): void {
    const entry = this.entries.get(name);
    if (entry === undefined || entry.runner !== runner) return; // a stopped runner's late result
    entry.history.push(result);
    if (entry.history.length > (this.options.historySize ?? 20)) entry.history.shift();
    if (result.ok) entry.totals.successes += 1;
    else entry.totals.failures += 1;
    entry.resumed = false;
    this.ctx.logger.debug({ probe: name, ok: result.ok, latencyMs: result.latencyMs, reason: result.reason, error: result.error }, "probe result");

    const before = entry.machine;
    const step = stepMachine(before, result.ok, result.reason, entry.config, this.now());
    entry.machine = step.machine;
    if (step.transition) {
      entry.message = result.error ? `${result.reason}: ${result.error}` : result.reason;
      this.emitTransition(name, entry, step.transition, result.error);
      // A span per transition, from the start of the attempt that decided it (exported only with OTLP traces).
      const { from, to, reason } = step.transition;
      this.ctx.trace(new Operation("healthcheck.transition", { "healthcheck.probe": name, "healthcheck.type": entry.config.type, "healthcheck.target": entry.config.target, "healthcheck.from": from, "healthcheck.to": to, "healthcheck.reason": reason }, Date.now, Date.parse(result.time)).finish());
      this.publish(name, entry);
    }
    if (this.trackLocalError(name, result)) this.updateLocalErrors();
    // Healthy and Unhealthy are summed up by the verdict; the streak matters only on the way between.
    const streakMatters = !["Healthy", "Unhealthy"].includes(entry.machine.state);
    if (step.transition !== undefined || (streakMatters && !sameStreak(before, entry.machine))) this.persist();
  }

  private emitTransition(name: string, entry: Entry, t: Transition, error: string): void {
    this.ctx.events.emit(
      transitionEvent(name, t, {
        error,
        attributes: {
          type: entry.config.type,
          target: entry.config.target,
          consecutiveSuccesses: entry.machine.consecutiveSuccesses,
          consecutiveFailures: entry.machine.consecutiveFailures,
        },
      }),
    );
  }

  private publish(name: string, entry: Entry): void {
    publishProbe(this.ctx.status, name, entry.config, entry.machine, entry.message);
    try {
      this.options.verdicts?.write(name, entry.machine.state);
    } catch (err) {
      this.ctx.logger.error({ err, probe: name }, "cannot write the probe's verdict file");
    }
  }

  /** Remembers probes that cannot run here at all; true when the set changed. */
  private trackLocalError(name: string, result: ProbeResultRecord): boolean {
    const had = this.localErrors.get(name);
    if (result.reason === LOCAL_ERROR) {
      this.localErrors.set(name, result.error);
      return had !== result.error;
    }
    return this.localErrors.delete(name);
  }

  private updateLocalErrors(): void {
    publishRunnable(this.ctx.status, this.localErrors);
  }

  private persist(): void {
    const probes = new Map<string, PersistedProbe>();
    for (const [name, e] of this.entries) probes.set(name, { fingerprint: e.fingerprint, machine: e.machine });
    try {
      this.ctx.state.save(encodePersisted(probes));
    } catch (err) {
      this.ctx.logger.error({ err }, "cannot save probe states");
    }
  }
}

function sameStreak(a: Machine, b: Machine): boolean {
  return a.consecutiveSuccesses === b.consecutiveSuccesses && a.consecutiveFailures === b.consecutiveFailures;
}
