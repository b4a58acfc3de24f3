// Public API of @routerd/dhcpv6-client.
export { DhcpV6Client, type DhcpV6ClientOptions } from "./client.js";
export type { ClientEvent, ClientEventType } from "./events.js";
export type { DelegatedPrefix, LeasedAddress, Information, Lease } from "./lease.js";
export type { Phase, PrefixHint } from "./fsm-types.js";
export type { DuidType } from "./duid.js";
export { eventJson, leaseJson } from "./event-json.js";
export { parseCliArgs, parsePrefix, type CliOptions } from "./args.js";
export { decodeMessage, encodeMessage, type Dhcp6Message, type DecodeResult } from "./codec.js";
export type { Dhcp6Option } from "./options.js";
export { initialState, step } from "./client-fsm.js";
export type { Transport, TransportFactory, TransportHandlers } from "./transport.js";
export { DAEMON_NAME, startDhcpv6Daemon, type Dhcpv6Daemon, type Dhcpv6DaemonOptions } from "./daemon.js";
export { EVENT_TOPICS, daemonEvent } from "./daemon-events.js";
export { HOLDING_PHASES, delegatedPrefixJson, statusPhase, type Withdrawn } from "./status-view.js";
export { toProtoBinding, type BindingView } from "./grpc-service.js";
