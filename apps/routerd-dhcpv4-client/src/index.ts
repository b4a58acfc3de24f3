// Public API of @routerd/dhcpv4-client: the engine, its events and the lease model, and what the daemon
// form reports (names, topics, the lease JSON routerd core reads). The codec and the pure state machine
// are exported for tools and tests that speak DHCP without the engine. The daemon wiring itself
// (daemon.ts, which loads the daemon kit) is not exported here, so importing the engine stays light.
export { DhcpV4Client, type ClientSnapshot, type DhcpV4ClientOptions } from "./client.js";
export { initialState, step } from "./client-fsm.js";
export {
  DEFAULT_TIMING,
  type Action,
  type ClientState,
  type FsmConfig,
  type FsmEvent,
  type LeaseEvent,
  type LeaseEventType,
  type Phase,
  type TimerName,
  type Transition,
} from "./fsm-types.js";
export { DEFAULT_PARAMETER_REQUEST_LIST, type IdentityConfig } from "./client-messages.js";
export { decodeMessage, encodeMessage, checkReply, type DecodeResult, type DhcpMessage, type OutgoingMessage } from "./codec.js";
export { INFINITE_LEASE, effectiveRoutes, leaseFromAck, type DhcpLease, type LeaseRoute } from "./lease.js";
export { LEASE_FILE, LeaseStore, type LeaseIdentity } from "./lease-store.js";
export { MessageType, Opt, type ClasslessRoute, type OptionMap } from "./options.js";
export { RFC_RETRANSMIT, type RetransmitPolicy } from "./retransmit.js";
export { createArpingProber, type AddressProber, type ProbeResult } from "./arp-probe.js";
export { eventLine, eventRecord } from "./event-line.js";
export { lineLogger, isLevelName, type EngineLogger, type LevelName, type LineLoggerOptions } from "./line-logger.js";
export { DAEMON_NAME, isInstanceName, socketPathOf, stateDirOf } from "./names.js";
export { EVENT_TOPICS, HOLDING_PHASES, daemonEvent, dhcpv4LeaseJson, resourcePhase, type DaemonEventInput } from "./status-view.js";
export { LeaseReporter, RESOURCE_KIND, type ClientIdentity, type LeaseView } from "./lease-reporter.js";
export { AlreadyRunningError, socketAnswers, startEngine, type EngineStartOptions, type StartedEngine } from "./engine-start.js";
