// Types shared by the pure client state machine and the engine that runs it.
import type { Dhcp6Message } from "./codec.js";
import type { ClientEvent } from "./events.js";
import type { IaView, Information, Lease } from "./lease.js";
import type { Dhcp6Option } from "./options.js";
import type { RandomSource } from "./random.js";
import type { ExchangeKind, RetransParams } from "./retransmit.js";

export interface FsmConfig {
  clientDuid: Uint8Array;
  mode: "stateful" | "information-only";
  /** Ask for a delegated prefix (IA_PD). */
  pd?: { iaid: number; prefixLength?: number; hint?: PrefixHint };
  /** Ask for an address (IA_NA). */
  na?: { iaid: number };
  rapidCommit: boolean;
  /** Upper bound of the random delay before the first Solicit/Information-request (RFC 8415 §18.2.1: SHOULD 0..1 s). */
  solicitMaxDelayMs: number;
  /** Option codes for the Option Request option. */
  requestedOptions: number[];
}

export interface PrefixHint {
  prefix: string;
  length: number;
}

export type Phase =
  | "init"
  | "solicit"
  | "request"
  | "bound"
  | "renew"
  | "rebind"
  | "release"
  | "information"
  | "informed"
  | "idle"
  | "stopped";

export interface Advert {
  serverId: Uint8Array;
  serverAddress: string;
  preference: number;
  ias: IaView[];
  usable: number;
}

export interface Exchange {
  kind: ExchangeKind;
  xid: number;
  params: RetransParams;
  /** Time of the first transmission (elapsed time and MRD count from here); undefined while delayed. */
  startedAt?: number;
  count: number;
  rtMs: number;
  serverId?: Uint8Array;
  ias: Dhcp6Option[];
  /** Solicit only: the first RT is over, so any Advertise is taken at once. */
  firstRtDone?: boolean;
  /** Solicit only: Advertises collected during the first RT. */
  adverts?: Advert[];
  /** Rebind that checks a stored lease after a restart or link change (§18.2.12): on timeout keep using it. */
  verify?: boolean;
}

export interface FsmState {
  phase: Phase;
  exchange?: Exchange;
  lease?: Lease;
  /** The last delegated prefix, asked for again after a restart or a loss. */
  lastPrefix?: PrefixHint;
  information?: Information;
  /** Server overrides from SOL_MAX_RT / INF_MAX_RT options (ms). */
  solMaxRtMs?: number;
  infMaxRtMs?: number;
  /** Consecutive failed acquisitions; spaces out restarts of Solicit. */
  failures: number;
  /** What to do once a Release exchange ends. */
  afterRelease?: "stop" | "idle";
  /** Drop a specific prefix hint after NotOnLink. */
  hintRejected?: boolean;
  /** The owner has been told about the current binding (the first one is always "acquired"). */
  announced?: boolean;
}

export type TimerName = "exchange" | "renew" | "rebind" | "expire" | "refresh";

export type FsmEvent =
  | { type: "start"; now: number }
  | { type: "timer"; name: TimerName; now: number }
  | { type: "packet"; now: number; message: Dhcp6Message; from: string }
  /** Renew now (or restart acquisition when not bound). */
  | { type: "renew"; now: number }
  /** Give leases back; then stop or stay idle until "renew". */
  | { type: "release"; now: number; then: "stop" | "idle" }
  /** Stop without releasing. */
  | { type: "stop"; now: number }
  /** The link may have changed (socket re-bound after the interface or its address went away). */
  | { type: "link-change"; now: number };

export type LogLevel = "debug" | "info" | "warn";

export type FsmAction =
  | { type: "send"; message: Dhcp6Message; exchange: ExchangeKind; attempt: number }
  | { type: "set-timer"; name: TimerName; at: number }
  | { type: "cancel-timer"; name: TimerName }
  | { type: "emit"; event: ClientEvent }
  | { type: "persist"; lease: Lease | undefined; lastPrefix: PrefixHint | undefined }
  | { type: "log"; level: LogLevel; msg: string; fields: Record<string, unknown> }
  /** The client reached "stopped": the engine may close its socket. */
  | { type: "stopped" };

export interface StepResult {
  state: FsmState;
  actions: FsmAction[];
}

export interface FsmEnv {
  config: FsmConfig;
  rng: RandomSource;
}
