export {
  ARTIFACT_KINDS,
  IntentConflictError,
  artifactId,
  compareText,
  isArtifactKind,
  mergeIntents,
  ownerKey,
  parseOwnerKey,
  sameAttributes,
  sortedBy,
  stableJson,
  type ArtifactIntent,
  type ArtifactKind,
  type Attributes,
  type DesiredArtifact,
  type IntentAction,
  type OwnerKey,
  type OwnerParts,
} from "./artifact.js";
export { FileLock, LockBusyError, pidAlive, withLock, writeFileAtomic, fsyncDir } from "./atomic-file.js";
export { Ledger, LedgerFormatError, LEDGER_API_VERSION, type LedgerDocument, type LedgerEntry, type LedgerState, type Ownership } from "./ledger.js";
export { BACKUPS_KEPT, LEDGER_FILE, LedgerSession, backupLedger, ledgerPath, listBackups, readLedger, writeLedger } from "./ledger-store.js";
export {
  checkLifecycleDeclarations,
  contractArtifactKinds,
  type LifecycleContract,
  type LifecycleDeclaration,
  type ResourceClass,
} from "./lifecycle.js";
export {
  FWMARK_MAX,
  FWMARK_MIN,
  TeardownRegistry,
  fwmarkOf,
  inFwmarkRange,
  teardownRegistry,
  type TeardownPolicy,
  type TeardownSpec,
  isRouterdRcScript,
  isRouterdUnit,
} from "./teardown-registry.js";
export { knownKind, observe, unknownKind, type Inventory, type KindInventory, type ObservedArtifact } from "./inventory.js";
export { STATUS_FILE, StatusFormatError, readStatuses, writeStatuses, type ObjectStatus, type Phase } from "./status.js";
export { findLookAlikes, findOrphans, planGc, type GcAction, type GcInput, type GcPlan, type GcSkip, type Orphan } from "./gc-planner.js";
export { RouterdError, formatLocated, type ErrorLocation } from "./errors.js";
export {
  MAIN_TABLE,
  ROUTERD_ROUTE_PROTOCOLS,
  RT_PROTOS_PATH,
  artifactNames,
  isRouterdDropin,
  parseFileBlockName,
  parseFwmarkRuleName,
  parseRouteName,
  parseRouteProtocolName,
  rtProtosContent,
} from "./artifact-names.js";
export { onTraceStage, traceStage, type StageListener } from "./trace.js";
export {
  DEFAULT_GENERATIONS_KEPT,
  GENERATIONS_DIR,
  GenerationStore,
  appliedBy,
  configDigest,
  parseKeep,
  type AppliedBy,
  type ConfirmationState,
  type Generation,
  type GenerationRef,
  type GenerationResult,
  type GenerationSummary,
} from "./generations.js";
export { sortNextHops, type NextHop } from "./next-hops.js";
