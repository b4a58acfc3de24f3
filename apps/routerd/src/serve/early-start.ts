// Session daemons dial before serve's first reconcile. A PPPoE session's daemon needs nothing from the host
// (its config file comes from the router config alone), while serve's first reconcile — loading the gRPC and
// logging machinery, reading daemon facts, observing the host, applying — takes seconds on a small box (and
// many under emulation) that the session could spend dialing. So `routerd serve` starts those daemons first,
// right after parsing the config, and records each in the ledger as a pending artifact routerd created
// before it runs (the write-ahead record the reconcile itself would make). The first reconcile then finds the
// daemon there, confirms the record, and its supervisor re-attaches to it through the pid file.
//
// This module stays light (no gRPC, no pino): it runs before those load. Nothing starts early when
//   - the config has a RouterdCluster (only the lease holder may change the host, and that is not known yet),
//   - a change waits for confirmation (serve may revert it rather than apply it),
//   - the config has an ObservabilityPipeline (a daemon's environment comes from serve's telemetry settings),
//   - another routerd holds the state directory's lock, or the session's underlying link is not up
//     (then the reconcile brings it up first, as before).
import { readFileSync } from "node:fs";
import { loadConfig, makeConfigView, PPPOE_CLIENT_DAEMON, type PPPoESessionSpec, type RouterConfig } from "@routerd/api";
import { artifactNames, LedgerSession, LockBusyError, traceStage } from "@routerd/resource";
import { readPending } from "../generations/pending.js";
import { DAEMON_KINDS, type DaemonDirs } from "./daemons.js";
import { launchDaemon, runningDaemonPid, writeDaemonConfig, type DaemonSpec } from "./supervisor.js";

/** Daemons whose config is known from the router config alone and that gain from starting at once: the kind of
 * the resource each instance is named after, and the link it needs up. */
const EARLY_DAEMONS: Readonly<Record<string, { kind: string; link(spec: PPPoESessionSpec): string }>> = {
  [PPPOE_CLIENT_DAEMON]: { kind: "PPPoESession", link: (s) => s.interface },
};

/** Kinds whose presence means serve must decide more than the config says before anything starts. */
const BLOCKING_KINDS: Readonly<Record<string, string>> = {
  RouterdCluster: "only the cluster's lease holder may start daemons",
  ObservabilityPipeline: "daemons get their telemetry settings from serve",
};

export interface EarlyStart {
  /** The config file's text and the config parsed from it (serve's first cycle reuses them). */
  text: string;
  config?: RouterConfig;
  /** `daemon/instance (pid N)` of each daemon started. */
  started: string[];
  /** Why nothing started early, when nothing did (for the log). */
  skipped?: string;
}

/** The early daemons' specs for a config, or why none may start (pure but for the link check). */
export function earlySpecs(config: RouterConfig, dirs: DaemonDirs, linkUp: (ifname: string) => boolean = isLinkUp): { specs: DaemonSpec[]; skipped?: string } {
  for (const r of config.resources) {
    const why = BLOCKING_KINDS[r.kind];
    if (why) return { specs: [], skipped: `${r.kind}/${r.metadata.name}: ${why}` };
  }
  const view = makeConfigView(config);
  const down: string[] = [];
  const specs = DAEMON_KINDS.filter((k) => EARLY_DAEMONS[k.daemon])
    .flatMap((k) => k.specs(view, dirs))
    .filter((s) => {
      const early = EARLY_DAEMONS[s.daemon]!;
      const ifname = view.ifname(early.link(view.find<PPPoESessionSpec>(early.kind, s.instance)!.spec));
      if (!linkUp(ifname)) down.push(`${s.daemon}/${s.instance} (${ifname})`);
      return linkUp(ifname);
    });
  return { specs, ...(down.length ? { skipped: `link down under ${down.join(", ")}` } : {}) };
}

/** IFF_UP in the link's flags (sysfs of serve's network namespace). */
function isLinkUp(ifname: string): boolean {
  try {
    return (Number.parseInt(readFileSync(`/sys/class/net/${ifname}/flags`, "utf8"), 16) & 1) === 1;
  } catch {
    return false;
  }
}

/**
 * Parses the config and starts its early daemons (write-ahead ledger record first). Never throws for a
 * config problem: serve's first cycle reports those with the full machinery.
 */
export function startEarlyDaemons(configPath: string, dirs: DaemonDirs): EarlyStart {
  let text: string;
  try {
    text = readFileSync(configPath, "utf8");
  } catch {
    return { text: "", started: [], skipped: "config unreadable" };
  }
  const { config } = loadConfig(text, configPath);
  traceStage("serve: config parsed and validated");
  if (!config) return { text, started: [], skipped: "config invalid" };
  const none = (skipped: string): EarlyStart => ({ text, config, started: [], skipped });
  try {
    if (readPending(dirs.stateDir)) return none("a change waits for confirmation");
  } catch {
    return none("the pending confirmation is unreadable");
  }
  const { specs: wanted, skipped } = earlySpecs(config, dirs);
  // One already running (serve restarted) is the supervisor's: it re-attaches and delivers a config change.
  const specs = wanted.filter((s) => runningDaemonPid(dirs.runDir, s) === undefined);
  if (!specs.length) return none(skipped ?? (wanted.length ? "session daemons already running" : "no session daemons"));
  let session: LedgerSession;
  try {
    session = LedgerSession.open(dirs.stateDir, 0);
  } catch (err) {
    if (err instanceof LockBusyError) return none("another routerd holds the state directory");
    throw err;
  }
  const started: string[] = [];
  try {
    for (const spec of specs) {
      const name = artifactNames.daemon(spec.daemon, spec.instance);
      if (!session.ledger.get("routerd.daemon", name)) {
        const owner = config.resources.find((r) => r.kind === EARLY_DAEMONS[spec.daemon]!.kind && r.metadata.name === spec.instance)!.owner;
        session.ledger.record({ kind: "routerd.daemon", name, owners: [owner], ownership: "created", state: "pending", attributes: { daemon: spec.daemon, instance: spec.instance } });
      }
    }
    session.save();
    for (const spec of specs) {
      if (spec.config) writeDaemonConfig(spec.config);
      const pid = launchDaemon(spec, dirs, process.env);
      if (pid !== undefined) started.push(`${spec.daemon}/${spec.instance} (pid ${pid})`);
    }
  } finally {
    session.close();
  }
  return { text, config, started, ...(skipped ? { skipped } : {}) };
}
