// Types of the DHCPv4 client state machine: its configuration, state, inputs and outputs.
import type { DhcpMessage, OutgoingMessage } from "./codec.js";
import type { IdentityConfig } from "./client-messages.js";
import type { DhcpLease } from "./lease.js";
import { RFC_RETRANSMIT, type RetransmitPolicy } from "./retransmit.js";

export type Phase =
  | "idle"
  | "init"
  | "selecting"
  | "requesting"
  | "checking"
  | "rebooting"
  | "bound"
  | "renewing"
  | "rebinding"
  | "stopped";

export type TimerName = "retransmit" | "renew" | "rebind" | "expire" | "restart";

export interface FsmConfig extends IdentityConfig {
  /** Hint for the first DISCOVER (option 50). */
  requestedAddress?: string;
  retransmit: RetransmitPolicy;
  /** REQUESTs sent in REQUESTING before discovery starts over. */
  requestAttempts: number;
  /** REQUESTs sent in INIT-REBOOT before the remembered lease is used as is or dropped. */
  rebootAttempts: number;
  /** RFC 2131 §4.4.5: at least 60 s between RENEWING/REBINDING retransmissions. */
  renewRetransmitMinMs: number;
  /** RFC 2131 §3.1.5: wait at least 10 s after a DECLINE. */
  declineWaitMs: number;
  /** Probe the offered address (ARP) before using it. */
  arpCheck: boolean;
  /** Uniform [0, 1): xids and jitter. */
  rng: () => number;
}

export const DEFAULT_TIMING = {
  retransmit: RFC_RETRANSMIT,
  requestAttempts: 4,
  rebootAttempts: 2,
  renewRetransmitMinMs: 60_000,
  declineWaitMs: 10_000,
} as const;

export interface ClientState {
  phase: Phase;
  xid: number;
  /** Retransmissions so far in the current exchange (0 after the first send). */
  attempt: number;
  exchangeStartedAt: number;
  requestSentAt: number;
  offer: { address: string; serverId: string } | null;
  /** The lease we hold (bound/renewing/rebinding) or remember (rebooting). */
  lease: DhcpLease | null;
  /** An acknowledged lease waiting for the address probe. */
  pending: DhcpLease | null;
  /** Address to ask for in the next DISCOVER. */
  hint: string | null;
  nakCount: number;
  deadlines: Partial<Record<TimerName, number>>;
}

export type LeaseEventType = "bound" | "renewed" | "rebinding" | "expired" | "lost" | "nak" | "released" | "declined";

export interface LeaseEvent {
  type: LeaseEventType;
  lease?: DhcpLease;
  address?: string;
  serverId?: string;
  reason?: string;
  /** bound only: a remembered lease taken back into use without the server's word (INIT-REBOOT unanswered). */
  resumed?: boolean;
}

export type Action =
  | { type: "send"; what: string; message: OutgoingMessage; to: string }
  | { type: "emit"; event: LeaseEvent }
  | { type: "persist"; lease: DhcpLease | null }
  | { type: "probe"; address: string }
  | { type: "ignored"; reason: string };

export type FsmEvent =
  | { type: "start"; now: number; storedLease?: DhcpLease | null }
  | { type: "packet"; now: number; message: DhcpMessage }
  | { type: "timer"; now: number; timer: TimerName }
  | { type: "probe-result"; now: number; address: string; inUse: boolean }
  | { type: "renew"; now: number }
  | { type: "release"; now: number }
  | { type: "stop"; now: number; release: boolean };

export interface Transition {
  state: ClientState;
  actions: Action[];
}

/** One step in progress: a draft state and the actions so far. */
export interface Ctx {
  s: ClientState;
  actions: Action[];
  cfg: FsmConfig;
  now: number;
}
