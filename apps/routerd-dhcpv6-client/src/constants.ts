// DHCPv6 protocol numbers (RFC 8415 §7.3, §21; RFC 3646, 4075, 6334, 7083).

export const CLIENT_PORT = 546;
export const SERVER_PORT = 547;
export const ALL_DHCP_RELAY_AGENTS_AND_SERVERS = "ff02::1:2";

export const MessageType = {
  SOLICIT: 1,
  ADVERTISE: 2,
  REQUEST: 3,
  CONFIRM: 4,
  RENEW: 5,
  REBIND: 6,
  REPLY: 7,
  RELEASE: 8,
  DECLINE: 9,
  RECONFIGURE: 10,
  INFORMATION_REQUEST: 11,
  RELAY_FORW: 12,
  RELAY_REPL: 13,
} as const;
export type MessageTypeCode = (typeof MessageType)[keyof typeof MessageType];

const MESSAGE_NAMES = new Map<number, string>(Object.entries(MessageType).map(([name, code]) => [code, name]));
export function messageTypeName(code: number): string {
  return MESSAGE_NAMES.get(code) ?? `TYPE-${code}`;
}

export const OptionCode = {
  CLIENTID: 1,
  SERVERID: 2,
  IA_NA: 3,
  IAADDR: 5,
  ORO: 6,
  PREFERENCE: 7,
  ELAPSED_TIME: 8,
  STATUS_CODE: 13,
  RAPID_COMMIT: 14,
  DNS_SERVERS: 23,
  DOMAIN_LIST: 24,
  IA_PD: 25,
  IAPREFIX: 26,
  SNTP_SERVERS: 31,
  INFORMATION_REFRESH_TIME: 32,
  AFTR_NAME: 64,
  SOL_MAX_RT: 82,
  INF_MAX_RT: 83,
} as const;

export const StatusCode = {
  Success: 0,
  UnspecFail: 1,
  NoAddrsAvail: 2,
  NoBinding: 3,
  NotOnLink: 4,
  UseMulticast: 5,
  NoPrefixAvail: 6,
} as const;

const STATUS_NAMES = new Map<number, string>(Object.entries(StatusCode).map(([name, code]) => [code, name]));
export function statusName(code: number): string {
  return STATUS_NAMES.get(code) ?? `Status-${code}`;
}

/** A lifetime or timer of 0xffffffff means "infinity" (RFC 8415 §7.7). */
export const INFINITY = 0xffffffff;

/** Information refresh defaults (RFC 8415 §7.6, §21.23). */
export const IRT_DEFAULT_S = 86_400;
export const IRT_MINIMUM_S = 600;
/** Accepted range for SOL_MAX_RT / INF_MAX_RT options (RFC 8415 §21.24, §21.25). */
export const MAX_RT_OPTION_MIN_S = 60;
export const MAX_RT_OPTION_MAX_S = 86_400;
