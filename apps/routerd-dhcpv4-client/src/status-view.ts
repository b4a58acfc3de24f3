// What the daemon reports: the resource phase GetStatus shows, the lease details routerd core reads (the
// Dhcpv4Lease JSON of @routerd/api's runtime view) and the daemon events for lease events. Pure.
import type { LeaseEvent, LeaseEventType, Phase } from "./fsm-types.js";
import { INFINITE_LEASE, isExpired, type DhcpLease } from "./lease.js";

/** Phases in which routerd core applies the lease (apps/routerd/src/core/runtime.ts). */
export const HOLDING_PHASES: ReadonlySet<string> = new Set(["Bound", "Renewing", "Rebinding"]);

const PHASE_NAMES: Record<Phase, string> = {
  idle: "Released",
  init: "Init",
  selecting: "Selecting",
  requesting: "Requesting",
  checking: "Checking",
  rebooting: "Rebooting",
  bound: "Bound",
  renewing: "Renewing",
  rebinding: "Rebinding",
  stopped: "Stopped",
};

/**
 * The resource phase. INIT-REBOOT with an unexpired stored lease counts as "Rebinding": RFC 2131 §3.2 lets
 * the client keep using that address while it asks, so a restarted daemon never makes routerd take the
 * address off the interface only to put it back when the ACK comes.
 */
export function resourcePhase(phase: Phase, lease: DhcpLease | null, now: number): string {
  if (phase === "rebooting" && lease && !isExpired(lease, now)) return "Rebinding";
  return PHASE_NAMES[phase];
}

/** Far future for an infinite lease (the largest Date), as the DHCPv6 client reports it too. */
const NEVER = new Date(8.64e15).toISOString();

export const isoOrNever = (ms: number | null): string => (ms === null ? NEVER : new Date(ms).toISOString());

/**
 * The details routerd core turns into artifacts: exactly the Dhcpv4Lease fields of @routerd/api
 * (runtime.ts), plus the timers for operators.
 */
export function dhcpv4LeaseJson(lease: DhcpLease): Record<string, unknown> {
  const out: Record<string, unknown> = {
    address: lease.address,
    prefixLength: lease.prefixLength,
    routers: lease.routers,
    dnsServers: lease.dnsServers,
    classlessRoutes: lease.classlessRoutes.map((r) => ({ destination: `${r.destination}/${r.prefixLength}`, gateway: r.gateway })),
    serverId: lease.serverId,
    expiresAt: isoOrNever(lease.expiresAt),
    leaseTime: lease.leaseTime,
    renewAt: isoOrNever(lease.renewAt),
    rebindAt: isoOrNever(lease.rebindAt),
  };
  if (lease.domainName !== undefined) out.domain = lease.domainName;
  if (lease.mtu !== undefined) out.mtu = lease.mtu;
  if (lease.ntpServers.length) out.ntpServers = lease.ntpServers;
  return out;
}

export interface DaemonEventInput {
  topic: string;
  message: string;
  severity: "info" | "warning";
  attributes: Record<string, string>;
}

export const EVENT_TOPICS: Record<LeaseEventType, string> = {
  bound: "dhcpv4.lease.bound",
  renewed: "dhcpv4.lease.renewed",
  rebinding: "dhcpv4.lease.rebinding",
  expired: "dhcpv4.lease.expired",
  lost: "dhcpv4.lease.lost",
  nak: "dhcpv4.lease.nak",
  released: "dhcpv4.lease.released",
  declined: "dhcpv4.lease.declined",
};

/** Events that take the address away (or warn that it may go); the rest are routine. */
const WARNINGS: ReadonlySet<LeaseEventType> = new Set(["rebinding", "expired", "lost", "nak", "declined"]);

function describe(ev: LeaseEvent): string {
  const l = ev.lease;
  const parts: string[] = [ev.type];
  if (l) parts.push(`${l.address}/${l.prefixLength} from ${l.serverId}`);
  else {
    if (ev.address) parts.push(ev.address);
    if (ev.serverId) parts.push(`from ${ev.serverId}`);
  }
  if (ev.reason) parts.push(`(${ev.reason})`);
  if (ev.resumed) parts.push("(stored lease, server did not answer)");
  return parts.join(" ");
}

/** A lease event as a daemon-kit event: flat string attributes, the whole lease JSON under "lease". */
export function daemonEvent(ev: LeaseEvent): DaemonEventInput {
  const attributes: Record<string, string> = {};
  const l = ev.lease;
  if (l) {
    attributes.address = l.address;
    attributes.prefixLength = String(l.prefixLength);
    attributes.serverId = l.serverId;
    attributes.leaseTime = l.leaseTime === INFINITE_LEASE ? "infinite" : String(l.leaseTime);
    attributes.expiresAt = isoOrNever(l.expiresAt);
    attributes.lease = JSON.stringify(dhcpv4LeaseJson(l));
  } else {
    if (ev.address) attributes.address = ev.address;
    if (ev.serverId) attributes.serverId = ev.serverId;
  }
  if (ev.reason) attributes.reason = ev.reason;
  if (ev.resumed) attributes.resumed = "true";
  return { topic: EVENT_TOPICS[ev.type], severity: WARNINGS.has(ev.type) ? "warning" : "info", message: describe(ev), attributes };
}
