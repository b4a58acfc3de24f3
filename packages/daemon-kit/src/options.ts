// The public shape of runDaemon: options in, a context for daemon code, a handle for whoever started it.
import type { ServiceDefinition, UntypedServiceImplementation } from "@grpc/grpc-js";
import type { Pipeline, SpanRecord } from "@routerd/telemetry";
import type { Logger } from "pino";
import type { IdleGcOptions } from "./idle-gc.js";
import type { StatusApi } from "./status-model.js";
import type { DaemonEvent, EventInput, JsonObject, JsonValue } from "./types.js";

/** A daemon-specific gRPC service served on the same socket. */
export interface ServiceBinding {
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

/** Returning nothing means ok. Throwing means ok=false with the error's message. */
export type CommandResult = { ok?: boolean; message?: string; details?: JsonObject } | void;
export type CommandHandler = (args: Record<string, string>, ctx: DaemonContext) => CommandResult | Promise<CommandResult>;

export interface EventOptions {
  /** Events kept in memory for WatchEvents replay. Default 1000. */
  ringSize?: number;
  /** Rotate events.jsonl past this size. Default 1 MiB. */
  maxBytes?: number;
  /** Rotated event files kept. Default 3. */
  keep?: number;
}

export interface RunDaemonOptions {
  /** Daemon name without the routerd- prefix, e.g. "dhcpv4-client". */
  name: string;
  /** Instance name, e.g. the resource it serves ("wan"). */
  instance: string;
  /** Socket at <runDir>/<name>/<instance>.sock. Default /run/routerd. */
  runDir?: string;
  /** State at <stateDir>/<name>/<instance>/. Default /var/lib/routerd. */
  stateDir?: string;
  logger?: Logger;
  /** Group (name or gid) given access to the socket. */
  socketGroup?: string | number;
  /** Socket mode. Default 0o600, or 0o660 when socketGroup is set. */
  socketMode?: number;
  /** Extra services; the function form receives the context (status, events, state) they report through. */
  services?: ServiceBinding[] | ((ctx: DaemonContext) => ServiceBinding[]);
  /**
   * Details computed when GetStatus asks (counters, say), merged over those set with status.setDetails.
   * Cheaper than refreshing details on a timer, and never written to state.json.
   */
  liveDetails?: () => JsonObject;
  /** Commands for the Command rpc by name; "reload" is built in and runs onReload. */
  commands?: Record<string, CommandHandler>;
  /** SIGHUP and the "reload" command. */
  onReload?: (ctx: DaemonContext) => void | Promise<void>;
  /** Runs at stop after ctx.signal aborts, within stopTimeoutMs. */
  onStop?: (ctx: DaemonContext) => void | Promise<void>;
  /** Aborting it stops the daemon, like SIGTERM. */
  signal?: AbortSignal;
  /** Install SIGTERM/SIGINT (stop) and SIGHUP (reload) handlers. Default true. */
  handleSignals?: boolean;
  /** Budget for onStop plus closing the server. Default 10000 ms. */
  stopTimeoutMs?: number;
  events?: EventOptions;
  /**
   * The process's ObservabilityPipeline (routerd serve passes its own). Without it the daemon follows the
   * settings file named by ROUTERD_TELEMETRY in `env`, when set.
   */
  telemetry?: Pipeline;
  /** Delay to coalesce status writes to state.json. Default 50 ms. */
  stateFlushDelayMs?: number;
  /**
   * A full collection a minute while the process is idle (idle-gc.ts), so its heap stays near what is live
   * instead of growing for an hour; false turns it off. Default: on unless ROUTERD_IDLE_GC=0 in `env`.
   */
  idleGc?: IdleGcOptions | false;
  /** Environment read for NOTIFY_SOCKET and ROUTERD_IDLE_GC. Default process.env. */
  env?: NodeJS.ProcessEnv;
  now?: () => Date;
}

export interface DaemonContext {
  readonly name: string;
  readonly instance: string;
  readonly socketPath: string;
  /** <stateDir>/<name>/<instance>: the daemon may keep its own files here too. */
  readonly stateDir: string;
  readonly logger: Logger;
  /** Aborted when the daemon starts stopping. */
  readonly signal: AbortSignal;
  readonly status: StatusApi;
  readonly events: { emit(input: EventInput): DaemonEvent };
  /**
   * Exports a finished operation as an OTLP trace (new Operation(...).finish()); a no-op unless the
   * ObservabilityPipeline configures OTLP traces, so a daemon without them never loads the SDK.
   */
  readonly trace: (span: SpanRecord) => void;
  readonly state: {
    /** What the daemon last saved (restored from state.json at start); null when nothing was. */
    readonly data: JsonValue;
    /** Replaces the saved data and writes state.json atomically before returning. */
    save(data: JsonValue): void;
  };
}

export interface StopResult {
  reason: string;
  /** False when onStop or the server close ran past stopTimeoutMs. */
  clean: boolean;
}

export interface DaemonHandle extends DaemonContext {
  /** Settles when the daemon has stopped (signal, handle.stop() or options.signal). */
  readonly done: Promise<StopResult>;
  stop(reason?: string): Promise<StopResult>;
  /** What SIGHUP does. */
  reload(): Promise<void>;
}
