// What pppd's exit status says about why a dial or session ended (pppd(8), EXIT STATUS), and how the daemon
// reacts: redial with the normal back-off, redial with the authentication back-off, or not at all.

export type EndReason =
  | "Stopped"
  | "AuthFailed"
  | "PeerAuthFailed"
  | "PeerNotResponding"
  | "Hangup"
  | "PeerTerminated"
  | "DiscoveryFailed"
  | "NegotiationFailed"
  | "NoKernelSupport"
  | "BadOptions"
  | "Failed";

export interface EndCause {
  reason: EndReason;
  /** For operators, in the status and the pppoe.session.down event. */
  message: string;
  /** auth: wait longer before trying the same password again (ISPs lock accounts after repeated failures). */
  backoff: "normal" | "auth";
}

const BY_CODE: Record<number, EndCause> = {
  0: { reason: "PeerTerminated", message: "the peer ended the session", backoff: "normal" },
  1: { reason: "Failed", message: "pppd hit a fatal error", backoff: "normal" },
  2: { reason: "BadOptions", message: "pppd rejected its options", backoff: "normal" },
  4: { reason: "NoKernelSupport", message: "the kernel has no PPP or PPPoE support (modules ppp_generic, pppoe)", backoff: "normal" },
  5: { reason: "Stopped", message: "pppd was stopped by a signal", backoff: "normal" },
  8: { reason: "DiscoveryFailed", message: "no PPPoE access concentrator answered (PADI/PADR)", backoff: "normal" },
  10: { reason: "NegotiationFailed", message: "PPP negotiation failed (LCP or IPCP)", backoff: "normal" },
  11: { reason: "PeerAuthFailed", message: "the peer failed to authenticate itself", backoff: "auth" },
  15: { reason: "PeerNotResponding", message: "the peer stopped answering LCP echo requests", backoff: "normal" },
  16: { reason: "Hangup", message: "the access concentrator hung up (PADT)", backoff: "normal" },
  19: { reason: "AuthFailed", message: "authentication failed: the ISP rejected the username or password", backoff: "auth" },
};

export function endCause(code: number | null, signal: NodeJS.Signals | null): EndCause {
  if (code === null) return { reason: "Failed", message: `pppd was killed by ${signal ?? "a signal"}`, backoff: "normal" };
  return BY_CODE[code] ?? { reason: "Failed", message: `pppd exited with status ${code}`, backoff: "normal" };
}
