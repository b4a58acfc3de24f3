// What the daemon reports about its session (pure): the resource phase and details GetStatus shows (the
// details are the PPPoESession status fields routerd core applies: apps/routerd/src/core/runtime.ts), the
// Session message of GetSession, and the pppoe.session.* events for a change of state.
import type { JsonObject } from "@routerd/daemon-kit";
import type { SessionConfig } from "./config.js";
import type { Happening, SessionState } from "./session/machine.js";

/** The phase in which routerd core applies the session (address, routes, DNS). */
export const HOLDING_PHASE = "Up";

export interface SessionView {
  name: string;
  phase: string;
  interface: string;
  device: string;
  currentAddress: string;
  peerAddress: string;
  dnsServers: string[];
  ipv6LocalLinkLocal: string;
  ipv6PeerLinkLocal: string;
  connectedAt?: Date;
  pppdPid: number;
  consecutiveFailures: number;
  totalDials: number;
  lastEndReason: string;
  lastExitCode?: number;
  lastError: string;
  nextDialAt?: Date;
}

export function sessionView(name: string, config: SessionConfig, s: SessionState): SessionView {
  return {
    name,
    phase: s.phase === "Idle" ? "Connecting" : s.phase,
    interface: config.interface,
    device: config.ifname,
    currentAddress: s.ipv4?.local ?? "",
    peerAddress: s.ipv4?.remote ?? "",
    dnsServers: s.ipv4?.dnsServers ?? [],
    ipv6LocalLinkLocal: s.ipv6?.localLinkLocal ?? "",
    ipv6PeerLinkLocal: s.ipv6?.peerLinkLocal ?? "",
    ...(s.connectedAt !== undefined && s.phase === "Up" ? { connectedAt: new Date(s.connectedAt) } : {}),
    pppdPid: s.pppdPid ?? 0,
    consecutiveFailures: s.consecutiveFailures,
    totalDials: s.totalDials,
    lastEndReason: s.lastEnd?.cause.reason ?? "",
    ...(s.lastEnd?.exitCode !== undefined ? { lastExitCode: s.lastEnd.exitCode } : {}),
    lastError: s.lastEnd ? `${s.lastEnd.cause.message}${s.lastEnd.error ? `\n${s.lastEnd.error}` : ""}` : "",
    ...(s.nextDialAt !== undefined ? { nextDialAt: new Date(s.nextDialAt) } : {}),
  };
}

/**
 * The resource details: the original API's PPPoESession status fields (interface, device, currentAddress,
 * peerAddress, gateway, dnsServers, connectedAt) plus the dialling state for operators.
 */
export function sessionDetails(v: SessionView): JsonObject {
  const out: JsonObject = {
    interface: v.interface,
    device: v.device,
    consecutiveFailures: v.consecutiveFailures,
    totalDials: v.totalDials,
  };
  if (v.currentAddress) {
    out.currentAddress = v.currentAddress;
    out.peerAddress = v.peerAddress;
    out.gateway = v.peerAddress;
    out.dnsServers = v.dnsServers;
  }
  if (v.ipv6LocalLinkLocal) {
    out.ipv6LocalLinkLocal = v.ipv6LocalLinkLocal;
    out.ipv6PeerLinkLocal = v.ipv6PeerLinkLocal;
  }
  if (v.connectedAt) out.connectedAt = v.connectedAt.toISOString();
  if (v.pppdPid) out.pppdPid = v.pppdPid;
  if (v.lastEndReason) out.lastEndReason = v.lastEndReason;
  if (v.lastExitCode !== undefined) out.lastExitCode = v.lastExitCode;
  if (v.nextDialAt) out.nextDialAt = v.nextDialAt.toISOString();
  return out;
}

/** A one-line message for GetStatus. */
export function sessionMessage(v: SessionView): string {
  switch (v.phase) {
    case "Up":
      return `${v.device} ${v.currentAddress || v.ipv6LocalLinkLocal} peer ${v.peerAddress || v.ipv6PeerLinkLocal}`;
    case "Connecting":
      return `dialling on ${v.interface} (attempt ${v.consecutiveFailures + 1})`;
    case "Stopped":
      return "stopped";
    default: {
      const next = v.nextDialAt ? `; next dial at ${v.nextDialAt.toISOString()}` : '; persist is off: send "redial" to dial again';
      return `${v.lastEndReason}${next}`;
    }
  }
}

export interface SessionEvent {
  topic: string;
  message: string;
  severity: "info" | "warning";
  attributes: Record<string, string>;
}

/** Events for one happening, from the states before and after it. */
export function sessionEvents(prev: SessionState, next: SessionState, h: Happening, device: string): SessionEvent[] {
  const out: SessionEvent[] = [];
  if (h.type === "dialed") out.push({ topic: "pppoe.session.dialing", message: `dialling (pppd ${h.pid})`, severity: "info", attributes: { pid: String(h.pid) } });
  if (next.phase === "Up" && prev.phase !== "Up") {
    const attributes: Record<string, string> = { device };
    if (next.ipv4) Object.assign(attributes, { address: next.ipv4.local, peer: next.ipv4.remote, dnsServers: next.ipv4.dnsServers.join(",") });
    if (next.ipv6) Object.assign(attributes, { localLinkLocal: next.ipv6.localLinkLocal, peerLinkLocal: next.ipv6.peerLinkLocal });
    out.push({ topic: "pppoe.session.up", message: `${device} up ${attributes.address ?? attributes.localLinkLocal ?? ""}`.trim(), severity: "info", attributes });
  }
  // A protocol that comes up on a session already up (IPV6CP and IPCP finish in either order).
  if (h.type === "ip-up" && prev.phase === "Up") {
    out.push({ topic: "pppoe.session.ipv4-up", message: `${device} ${h.link.local} peer ${h.link.remote}`, severity: "info", attributes: { device, address: h.link.local, peer: h.link.remote, dnsServers: h.link.dnsServers.join(",") } });
  }
  if (h.type === "ipv6-up" && prev.phase === "Up") {
    out.push({ topic: "pppoe.session.ipv6-up", message: `${device} IPv6 ${h.link.localLinkLocal}`, severity: "info", attributes: { device, localLinkLocal: h.link.localLinkLocal, peerLinkLocal: h.link.peerLinkLocal } });
  }
  if (prev.phase === "Up" && next.phase !== "Up") {
    const reason = h.type === "exited" ? h.cause.reason : "LinkDown";
    out.push({ topic: "pppoe.session.down", message: `${device} down: ${h.type === "exited" ? h.cause.message : h.type}`, severity: "warning", attributes: { device, reason } });
  }
  if (h.type === "exited") {
    const attributes: Record<string, string> = { reason: h.cause.reason, ...(h.exitCode !== undefined ? { exitCode: String(h.exitCode) } : {}) };
    if (next.nextDialAt !== undefined) attributes.nextDialInMs = String(Math.max(0, next.nextDialAt - h.at));
    if (h.cause.reason === "AuthFailed") out.push({ topic: "pppoe.session.auth-failed", message: h.cause.message, severity: "warning", attributes });
    // connectedAt outlives ip-down until pppd exits: it tells whether this pppd's session ever came up.
    else if (prev.connectedAt === undefined && !next.stopping) out.push({ topic: "pppoe.session.dial-failed", message: h.cause.message, severity: "warning", attributes });
  }
  return out;
}
