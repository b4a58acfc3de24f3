// @routerd/healthcheck: the config contract routerd serve writes, the probe state model, and client
// helpers for reading probe states and following transitions. The daemon itself is main.ts.
export {
  ConfigError,
  DNS_QUERY_TYPES,
  PROBE_TYPES,
  effectivePort,
  loadHealthcheckConfig,
  parseHealthcheckConfig,
  parseHealthcheckConfigText,
  type DnsQuery,
  type DnsQueryType,
  type HealthcheckConfig,
  type ProbeConfig,
  type ProbeType,
} from "./config.js";
export {
  PROBE_STATES,
  initialMachine,
  isConsistent,
  isProbeState,
  isUsable,
  resetMachine,
  stepMachine,
  type Machine,
  type ProbeState,
  type StepResult,
  type Thresholds,
  type Transition,
  type Verdict,
} from "./state-machine.js";
export { TRANSITION_TOPIC, transitionFromEvent, type ProbeTransition } from "./transition-event.js";
export { getProbe, listProbes, probeStates, watchTransitions, type WatchTransitionsOptions } from "./client.js";
export { DAEMON_NAME, DEFAULT_INSTANCE, healthcheckSocketPath } from "./names.js";
export { PROBE_KIND } from "./probe-kind.js";
