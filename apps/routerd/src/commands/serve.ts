import { existsSync } from "node:fs";
import { durationMs } from "@routerd/api";

import type { Command } from "@routerd/cli";
import { applyV8Flags } from "@routerd/daemon-kit/v8-flags";
import { parseKeep, type RouterdError } from "@routerd/resource";
import type { SupervisorMode } from "../core/service-units.js";
import { checkSupervisorHost, parseSupervisorMode, recordSupervisorMode } from "../core/supervisor-mode.js";
import { KEEP_OPTION } from "./apply-run.js";
import { COMMON_OPTIONS, CONFIG_OPTION } from "./common.js";
import type { EarlyStart } from "../serve/early-start.js";

export const serveCommand: Command = {
  name: "serve",
  summary: "run the reconcile loop and supervise the daemons the config needs",
  usage: "serve --config FILE [--interval 30s] [--node-name NAME] [--stop-daemons-on-exit] [--supervisor builtin|systemd|rc.d]",
  description:
    "Reconciles on config change (the file is re-read every second and on SIGHUP), on health transitions and\n" +
    "every --interval. Starts, restarts (with back-off) and tears down daemons; a restarted serve re-attaches\n" +
    "to running daemons instead of starting duplicates. With a RouterdCluster resource only the lease holder\n" +
    "changes the host. Status: `routerctl status` (socket <run-dir>/routerd/core.sock).\n" +
    "Each config it applies successfully is recorded as a generation. A change left pending by\n" +
    "`routerd apply --confirm-within` is reverted when its deadline passes, also after serve restarts; while\n" +
    "it is pending, serve does not apply a different config.\n" +
    "--supervisor systemd (Linux) hands the daemons that have a generated unit (routerd-<daemon>@<instance>.service,\n" +
    "routerd-tailscale-<name>.service) to systemd: reconcile writes and enables their units and serve does not\n" +
    "start them itself. --supervisor rc.d (FreeBSD) does the same with generated rc.d scripts\n" +
    "(routerd_<daemon>_<instance>, routerd_tailscale_<name>, each enabled in /etc/rc.conf.d/<name>). The choice is\n" +
    "recorded in the state dir, so plan and reconcile without --supervisor plan the same artifacts.",
  exitCodes: { 0: "stopped by SIGTERM or SIGINT", 1: "the config cannot be read or an option is wrong" },
  examples: [
    { command: "routerd serve --config /etc/routerd/router.yaml", description: "what the routerd.service unit runs" },
    { command: "kill -HUP $(pidof routerd)", description: "re-read the config now" },
  ],
  seeAlso: ["routerctl status", "docs/serve.md"],
  options: {
    ...CONFIG_OPTION,
    interval: { type: "string", default: "30s", valueName: "DURATION", description: "periodic reconcile interval" },
    "node-name": { type: "string", valueName: "NAME", description: "this node's name in the cluster lease (default: host name)" },
    "stop-daemons-on-exit": { type: "boolean", description: "stop supervised daemons when serve stops (default: leave them running)" },
    "log-level": { type: "string", default: "info", valueName: "LEVEL", description: "pino log level" },
    "metrics-listen": {
      type: "string",
      valueName: "ADDR",
      description: "where the Prometheus endpoint listens when an ObservabilityPipeline lists metrics: unix:PATH or a loopback HOST:PORT (default unix:<run-dir>/routerd/metrics.sock)",
    },
    supervisor: { type: "string", default: "builtin", valueName: "builtin|systemd|rc.d", description: "who runs the daemons: this serve (builtin), generated routerd-*.service units (systemd) or routerd_* rc.d scripts (rc.d, FreeBSD)" },
    ...KEEP_OPTION,
    ...COMMON_OPTIONS,
  },
  async run(v, io) {
    // Before the loop's machinery loads: serve's bursts run in the interpreter (daemon-kit's v8-flags.ts).
    applyV8Flags("routerd");
    const configPath = v.config as string | undefined;
    if (!configPath || !existsSync(configPath)) {
      io.err(configPath ? `cannot read ${configPath}` : "--config FILE is required");
      return 1;
    }
    let supervisor: SupervisorMode;
    try {
      supervisor = parseSupervisorMode(v.supervisor);
      checkSupervisorHost(supervisor, String(v.root ?? "/"));
    } catch (err) {
      io.err(`${(err as Error).message}: ${(err as RouterdError).hint ?? ""}`);
      return 1;
    }
    let intervalMs: number;
    try {
      intervalMs = durationMs(String(v.interval));
    } catch {
      io.err(`--interval ${v.interval} is not a duration like 30s`);
      return 1;
    }
    const dirs = { root: String(v.root), stateDir: String(v["state-dir"]), runDir: String(v["run-dir"]) };
    // Session daemons (PPPoE) dial while the machinery below loads and the first reconcile runs.
    const { startEarlyDaemons } = await import("../serve/early-start.js");
    let early: EarlyStart;
    try {
      // Under systemd the daemons' generated units start them; serve must not start a second copy.
      early = supervisor !== "builtin" ? { text: "", started: [], skipped: `--supervisor ${supervisor}: the daemons' units or scripts start them` } : startEarlyDaemons(configPath, dirs);
    } catch (err) {
      early = { text: "", started: [], skipped: (err as Error).message };
    }
    // The loop and its gRPC/daemon machinery load only for serve, not for every CLI command.
    const [{ Server, defaultNodeName, serveHost }, { pino }, { Pipeline, parseListen }, { defaultMetricsListen }] = await Promise.all([
      import("../serve/serve.js"),
      import("pino"),
      import("@routerd/telemetry"),
      import("../serve/telemetry.js"),
    ]);
    const metricsListen = (v["metrics-listen"] as string | undefined) ?? defaultMetricsListen(String(v["run-dir"]));
    try {
      parseListen(metricsListen);
    } catch (err) {
      io.err(`--metrics-listen ${(err as Error).message}`);
      return 1;
    }
    // serve's log lines go to stderr and, through the pipeline, to the ObservabilityPipeline's sinks.
    const pipeline = new Pipeline({ daemon: "routerd", instance: "core" });
    const logger = pino(
      { name: "routerd", level: String(v["log-level"]) },
      pino.multistream([
        { level: "trace", stream: pino.destination(2) },
        { level: "trace", stream: pipeline.logStream() },
      ]),
    );
    const server = new Server({
      configPath,
      host: serveHost(dirs),
      early,
      intervalMs,
      nodeName: (v["node-name"] as string | undefined) ?? defaultNodeName(),
      stopDaemonsOnExit: Boolean(v["stop-daemons-on-exit"]),
      keepGenerations: parseKeep(v["keep-generations"]),
      supervisor,
      logger,
      telemetry: { pipeline, metricsListen },
    });
    recordSupervisorMode(String(v["state-dir"]), supervisor);
    await server.run();
    return 0;
  },
};
