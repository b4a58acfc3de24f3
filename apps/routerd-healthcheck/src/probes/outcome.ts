// What one probe attempt returns, and how socket errors map to short reason codes.
import type { ProbeConfig } from "../config.js";

export const SUCCEEDED = "Succeeded";

export type FailureReason =
  | "Timeout"
  | "ConnectionRefused"
  | "ConnectionReset"
  | "HostUnreachable"
  | "NetworkUnreachable"
  | "NetworkError"
  | "NameResolutionFailed"
  | "InterfaceNotFound"
  /** The configured source address is not on this host (the uplink lost it). */
  | "SourceUnavailable"
  | "BadStatus"
  | "MalformedReply"
  | "DnsErrorRcode"
  | "DnsNoAnswer"
  | "TlsError"
  /** The probe could not run here (missing program, permission): the daemon's problem, not the target's. */
  | "LocalError";

export type ProbeOutcome =
  | { ok: true; latencyMs: number; detail?: string }
  | { ok: false; reason: FailureReason; error: string; latencyMs?: number };

export type ProbeFailure = Extract<ProbeOutcome, { ok: false }>;

/** One attempt. It must settle soon after `signal` aborts (the timeout) and release what it opened. */
export type ProbeFn = (probe: ProbeConfig, signal: AbortSignal) => Promise<ProbeOutcome>;

const ERRNO_REASONS: Record<string, FailureReason> = {
  ECONNREFUSED: "ConnectionRefused",
  ECONNRESET: "ConnectionReset",
  EPIPE: "ConnectionReset",
  ECONNABORTED: "ConnectionReset",
  EHOSTUNREACH: "HostUnreachable",
  EHOSTDOWN: "HostUnreachable",
  ENETUNREACH: "NetworkUnreachable",
  ENETDOWN: "NetworkUnreachable",
  ETIMEDOUT: "Timeout",
  ENODEV: "InterfaceNotFound",
  ENXIO: "InterfaceNotFound",
  EADDRNOTAVAIL: "SourceUnavailable",
  ENOTFOUND: "NameResolutionFailed",
  EAI_AGAIN: "NameResolutionFailed",
  EAI_NONAME: "NameResolutionFailed",
  EAI_FAIL: "NameResolutionFailed",
  EPERM: "LocalError",
  EACCES: "LocalError",
  ENOENT: "LocalError",
  EMFILE: "LocalError",
  ENFILE: "LocalError",
  ENOTSUP_TCP_OPTIONS: "LocalError",
  ESOCKOPT: "LocalError",
  ENOPROTOOPT: "LocalError",
  EPROTO: "TlsError",
  ERR_INVALID_HTTP_RESPONSE: "MalformedReply",
  // Certificate verification (tlsVerify): OpenSSL's verify codes.
  DEPTH_ZERO_SELF_SIGNED_CERT: "TlsError",
  SELF_SIGNED_CERT_IN_CHAIN: "TlsError",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "TlsError",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "TlsError",
  CERT_HAS_EXPIRED: "TlsError",
  CERT_NOT_YET_VALID: "TlsError",
};

/** Families of codes: llhttp parse errors (HPE_*) and OpenSSL failures (ERR_SSL_*). */
const PREFIX_REASONS: [string, FailureReason][] = [
  ["HPE_", "MalformedReply"],
  ["ERR_SSL_", "TlsError"],
  ["ERR_TLS_", "TlsError"],
];

/** A failed outcome from a thrown socket/DNS/HTTP error. Unknown codes are NetworkError with the message. */
export function failureFromError(err: unknown, latencyMs?: number): ProbeFailure {
  const e = err instanceof Error ? (err as NodeJS.ErrnoException) : new Error(String(err));
  const code = (e as NodeJS.ErrnoException).code;
  const byPrefix = PREFIX_REASONS.find(([prefix]) => code?.startsWith(prefix) === true)?.[1];
  const reason = (code !== undefined ? ERRNO_REASONS[code] : undefined) ?? byPrefix ?? "NetworkError";
  return { ok: false, reason, error: e.message || code || "error", ...(latencyMs !== undefined ? { latencyMs } : {}) };
}

export function timeoutOutcome(timeoutMs: number): ProbeFailure {
  return { ok: false, reason: "Timeout", error: `no answer within ${timeoutMs} ms`, latencyMs: timeoutMs };
}

/** Milliseconds since `start` (a process.hrtime.bigint() value), to 0.001 ms. */
export function elapsedMs(start: bigint): number {
  return Math.round(Number(process.hrtime.bigint() - start) / 1_000) / 1_000;
}
