export { systemRunner, runJson, CommandError, type CommandResult, type CommandRunner, type RunOptions } from "./exec.js";
export { rooted, type HostContext } from "./context.js";
export { NAME_HINTED_KINDS, observeInventory, observableKinds, prefetchInventory, type InventoryPrefetch, type NameHints } from "./inventory.js";
export { driftOf, type Difference } from "./drift.js";
export { apply, type ApplyRequest, type DaemonPort, type Step, type StepResult } from "./executors/apply.js";
export { replaceTableScript } from "./executors/nft.js";
export { IP_LINES, failedBatchLines } from "./executors/ip-lines.js";
export { findBlock, removeBlock, upsertBlock } from "./file-blocks.js";
export { sysctlPath } from "./observers/system.js";
