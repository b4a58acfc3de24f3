// Public API of @routerd/dhcpv4-client: the engine, its events and the lease model. The codec and the
// pure state machine are exported for tools and tests that speak DHCP without the engine.
export { DhcpV4Client, type DhcpV4ClientOptions } from "./client.js";
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
