// @routerd/daemon-kit: what every routerd daemon shares. Start with runDaemon(); see README.md.
export { runDaemon } from "./run-daemon.js";
export { DEFAULT_IDLE_GC, IdleCollector, fullCollection, idleCollectionDue, idleGcSetting, type IdleGcOptions } from "./idle-gc.js";
export { daemonMain, exitWith, pidAlive, runConfiguredDaemon, type StartDaemon } from "./main-entry.js";
export { ConfigError, LOG_LEVELS, loadJsonConfig, parseDaemonCli, parseJsonConfigText, type DaemonCliOptions, type DaemonCliResult, type DaemonCliSpec } from "./cli.js";
export type {
  CommandHandler,
  CommandResult,
  DaemonContext,
  DaemonHandle,
  EventOptions,
  RunDaemonOptions,
  ServiceBinding,
  StopResult,
} from "./options.js";
export { DaemonStartError, type DaemonStartErrorCode } from "./errors.js";
export type { StatusApi } from "./status-model.js";
export type {
  Condition,
  ConditionInput,
  ConditionStatus,
  DaemonEvent,
  EventInput,
  Health,
  JsonObject,
  JsonValue,
  Phase,
  ResourceState,
  ResourceUpdate,
  Severity,
} from "./types.js";
export { findCondition, setCondition, type ConditionChange } from "./conditions.js";
export { EVENT_LOG_FILE } from "./event-log.js";
export { STATE_FILE, type StateDocument } from "./state-file.js";
export { notifyReady, type NotifyResult } from "./systemd-notify.js";
export {
  COMPANIONS_DIR,
  OWNER_FILE,
  companionsDir,
  keeperMatch,
  processMatches,
  readCompanionRecord,
  spawnKeeper,
  stopCompanions,
  terminateProcess,
  writeCompanionRecord,
  writeOwnerRecord,
  type CompanionRecord,
  type KeeperOptions,
} from "./companions.js";
export { Operation, type SpanAttributes, type SpanRecord } from "@routerd/telemetry";
