export { systemRunner, runJson, CommandError, type CommandResult, type CommandRunner, type RunOptions } from "./exec.js";
export { rooted, type HostContext } from "./context.js";
export { NAME_HINTED_KINDS, observeInventory, observableKinds, prefetchInventory, topicsOfKinds, type InventoryPrefetch, type NameHints, type ObservationCache } from "./inventory.js";
export { TopicCache, TOPICS, IMPLIES, withImplied, type CacheCounters, type Topic } from "./resident/cache.js";
export { NetlinkMonitor, MONITOR_ARGV, monitorCommand, subscribed, topicsOfLine, type MonitorHandlers, type MonitorOptions } from "./resident/monitor.js";
export { ResidentInventory, DEFAULT_RESYNC_MS, type ResidentOptions, type ResidentState, type ResidentView } from "./resident/resident.js";
export { driftOf, type Difference } from "./drift.js";
export { apply, type ApplyRequest, type DaemonPort, type Step, type StepResult } from "./executors/apply.js";
export { replaceTableScript } from "./executors/nft.js";
export { IP_LINES, failedBatchLines } from "./executors/ip-lines.js";
export { findBlock, removeBlock, upsertBlock } from "./file-blocks.js";
export { sysctlPath } from "./observers/system.js";
export { observeLinkFacts } from "./observers/ip.js";
export { LINK_TYPES, linkAddLine, linkNeedsRecreate, type LinkData } from "./links.js";
export { observeWireGuardDevices, parseWgDump, WIREGUARD_GO_SOCKET_DIR, type WireGuardDeviceState, type WireGuardPeerState } from "./observers/wireguard.js";
export { keyFacts, keyFingerprint, readKeyFile, wireGuardPublicKey } from "./wireguard/keys.js";
export { hasPackageDatabase, installPackage, managersOf, observePackages, parseDpkgQuery, readHostOs, type HostOs } from "./packages.js";
export { PACKAGE_MANAGERS, type ManagerName, type PackageManagerCommands } from "./package-managers.js";
export {
  MODULE_SOURCES,
  detectHostServices,
  hasModuleSupport,
  loadableKernelModules,
  type ModulesDepIo,
  loadKernelModule,
  observeDropins,
  observeKernelModules,
  parseBuiltin,
  parseModulesDep,
  parseProcModules,
  removeDropin,
  writeDropin,
  type LoadedModule,
  type ModuleSources,
} from "./runtime.js";
export { SYSTEMD_UNIT_DIR, ensureUnit, observeSystemdUnits, removeUnit } from "./units.js";
export { RC_CONF_DIR, RC_SCRIPT_DIR, ensureRcScript, observeRcScripts, removeRcScript } from "./rc-scripts.js";
