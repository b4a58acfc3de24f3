// The session's state and how each happening changes it. Pure: the manager (manager.ts) performs what the
// returned state implies (start pppd, arm the redial timer) and reports it.
import type { EndCause } from "../pppd/exit-status.js";
import { redialDelayMs, type BackoffPolicy } from "./backoff.js";

export type SessionPhase = "Idle" | "Connecting" | "Up" | "Down" | "AuthFailed" | "Stopped";

export interface Ipv4Link {
  local: string;
  remote: string;
  dnsServers: string[];
}

export interface Ipv6Link {
  localLinkLocal: string;
  peerLinkLocal: string;
}

export interface SessionState {
  phase: SessionPhase;
  pppdPid?: number;
  /** When the running session came up (ms); undefined while not up. */
  connectedAt?: number;
  ipv4?: Ipv4Link;
  ipv6?: Ipv6Link;
  consecutiveFailures: number;
  totalDials: number;
  lastEnd?: { cause: EndCause; exitCode?: number; error: string; at: number };
  /** When the next dial starts (ms); undefined when none is scheduled. */
  nextDialAt?: number;
  /** A redial was asked for while pppd was still running: dial as soon as it is gone. */
  redialPending: boolean;
  stopping: boolean;
}

export const INITIAL_STATE: SessionState = { phase: "Idle", consecutiveFailures: 0, totalDials: 0, redialPending: false, stopping: false };

export type Happening =
  | { type: "dialed"; pid: number }
  | { type: "ip-up"; link: Ipv4Link; at: number }
  | { type: "ipv6-up"; link: Ipv6Link; at: number }
  | { type: "ip-down" }
  | { type: "ipv6-down" }
  /** pppd is gone. `random` is a draw from [0, 1) for the back-off's jitter. */
  | { type: "exited"; cause: EndCause; exitCode?: number; error: string; at: number; persist: boolean; policy: BackoffPolicy; random: number }
  | { type: "redial-requested"; at: number }
  | { type: "stop-requested" };

export function isUp(s: SessionState): boolean {
  return s.phase === "Up";
}

export function step(s: SessionState, h: Happening): SessionState {
  switch (h.type) {
    case "dialed":
      return { ...s, phase: "Connecting", pppdPid: h.pid, totalDials: s.totalDials + 1, nextDialAt: undefined, redialPending: false };
    case "ip-up":
      return { ...s, phase: "Up", ipv4: h.link, connectedAt: s.connectedAt ?? h.at };
    case "ipv6-up":
      return { ...s, phase: "Up", ipv6: h.link, connectedAt: s.connectedAt ?? h.at };
    case "ip-down":
      return withoutLink(s, "ipv4");
    case "ipv6-down":
      return withoutLink(s, "ipv6");
    case "exited": {
      const wasStable = s.connectedAt !== undefined && h.at - s.connectedAt >= h.policy.stableMs;
      const failures = wasStable ? 0 : s.consecutiveFailures + 1;
      const base: SessionState = {
        ...s,
        pppdPid: undefined,
        connectedAt: undefined,
        ipv4: undefined,
        ipv6: undefined,
        consecutiveFailures: failures,
        lastEnd: { cause: h.cause, ...(h.exitCode !== undefined ? { exitCode: h.exitCode } : {}), error: h.error, at: h.at },
      };
      if (s.stopping) return { ...base, phase: "Stopped", nextDialAt: undefined };
      const phase: SessionPhase = h.cause.reason === "AuthFailed" ? "AuthFailed" : "Down";
      // An operator's redial starts over at once; otherwise persist decides, with the back-off.
      if (s.redialPending) return { ...base, phase, consecutiveFailures: 0, nextDialAt: h.at, redialPending: false };
      return { ...base, phase, nextDialAt: h.persist ? h.at + redialDelayMs(failures, h.cause, h.policy, h.random) : undefined };
    }
    case "redial-requested":
      if (s.stopping) return s;
      if (s.pppdPid !== undefined) return { ...s, redialPending: true };
      return { ...s, consecutiveFailures: 0, nextDialAt: h.at };
    case "stop-requested":
      return { ...s, stopping: true, nextDialAt: undefined, redialPending: false, ...(s.pppdPid === undefined ? { phase: "Stopped" as const } : {}) };
  }
}

/** One protocol went down; the session is down when neither is left (pppd exits right after). */
function withoutLink(s: SessionState, which: "ipv4" | "ipv6"): SessionState {
  const next = { ...s, [which]: undefined };
  if (next.ipv4 === undefined && next.ipv6 === undefined && s.phase === "Up") return { ...next, phase: "Down", connectedAt: s.connectedAt };
  return next;
}
