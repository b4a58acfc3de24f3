#!/usr/bin/env node
// A tiny daemon on the kit, for tests, the benchmark, and as a template for real daemons.
//   node dist/testing/echo-daemon.js --instance a --run-dir /tmp/x/run --state-dir /tmp/x/state
// Commands: echo (returns its args), emit (an event), count (a counter kept in state.json),
// resource (sets a resource's phase and one condition), phase (Running|Degraded), fail (ok=false).
import { parseArgs } from "node:util";
import { pino } from "pino";
import { DaemonStartError } from "../errors.js";
import type { CommandHandler } from "../options.js";
import { runDaemon } from "../run-daemon.js";
import type { ConditionStatus, JsonValue, Severity } from "../types.js";

const { values } = parseArgs({
  options: {
    name: { type: "string", default: "echo" },
    instance: { type: "string", default: "default" },
    "run-dir": { type: "string" },
    "state-dir": { type: "string" },
    "socket-group": { type: "string" },
    "ring-size": { type: "string" },
    "event-max-bytes": { type: "string" },
    "event-keep": { type: "string" },
    "stop-timeout-ms": { type: "string" },
  },
});

const logger = pino({ name: `routerd-${values.name}`, level: process.env.ROUTERD_LOG_LEVEL ?? "info" });

function optionalInt(v: string | undefined): number | undefined {
  return v === undefined ? undefined : Number.parseInt(v, 10);
}

function counterOf(data: JsonValue): number {
  return typeof data === "object" && data !== null && !Array.isArray(data) && typeof data.counter === "number" ? data.counter : 0;
}

let reloads = 0;

const commands: Record<string, CommandHandler> = {
  echo: (args) => ({ message: "echo", details: { ...args } }),
  emit: (args, ctx) => {
    const event = ctx.events.emit({
      topic: args.topic ?? "echo.message",
      message: args.message ?? "",
      severity: (args.severity as Severity | undefined) ?? "info",
      resource: args.resource ?? "",
      attributes: { via: "command" },
    });
    return { message: `seq ${event.seq}`, details: { seq: event.seq } };
  },
  count: (_args, ctx) => {
    const counter = counterOf(ctx.state.data) + 1;
    ctx.state.save({ counter });
    ctx.status.setDetails({ counter, reloads });
    return { message: String(counter), details: { counter } };
  },
  resource: (args, ctx) => {
    const name = args.name ?? "r1";
    ctx.status.setResource(name, { kind: "EchoTarget", phase: args.phase ?? "Ready", message: args.message ?? "" });
    if (args.condition) {
      ctx.status.setResourceCondition(name, {
        type: args.condition,
        status: (args.status as ConditionStatus | undefined) ?? "True",
        reason: args.reason ?? "",
      });
    }
  },
  phase: (args, ctx) => {
    if (args.phase !== "Running" && args.phase !== "Degraded") return { ok: false, message: "phase must be Running or Degraded" };
    ctx.status.setPhase(args.phase);
  },
  fail: (args) => {
    throw new Error(args.message ?? "failed on purpose");
  },
};

try {
  const daemon = await runDaemon({
    name: values.name,
    instance: values.instance,
    runDir: values["run-dir"],
    stateDir: values["state-dir"],
    socketGroup: values["socket-group"],
    logger,
    commands,
    stopTimeoutMs: optionalInt(values["stop-timeout-ms"]),
    events: {
      ringSize: optionalInt(values["ring-size"]),
      maxBytes: optionalInt(values["event-max-bytes"]),
      keep: optionalInt(values["event-keep"]),
    },
    onReload: (ctx) => {
      reloads += 1;
      ctx.status.setDetails({ counter: counterOf(ctx.state.data), reloads });
    },
  });
  daemon.status.setDetails({ counter: counterOf(daemon.state.data), reloads });
  const result = await daemon.done;
  process.exitCode = result.clean ? 0 : 1;
} catch (err) {
  logger.fatal({ err, code: err instanceof DaemonStartError ? err.code : undefined }, "daemon failed to start");
  process.exitCode = err instanceof DaemonStartError && err.code === "ALREADY_RUNNING" ? 75 : 1;
}
