// The lease a DHCPACK grants, with absolute timers, and the routes it implies (RFC 3442 precedence).
import type { DhcpMessage } from "./codec.js";
import { classfulMask, isIpv4, maskToPrefix, ZERO_ADDRESS } from "./ipv4.js";
import {
  Opt,
  readAddress,
  readAddressList,
  readClasslessRoutes,
  readText,
  readU16,
  readU32,
  type ClasslessRoute,
} from "./options.js";

/** Option 51 value meaning "never expires". */
export const INFINITE_LEASE = 0xffffffff;
/** Used when an ACK carries no lease time (RFC 2131 requires one; udhcpc uses the same fallback). */
export const DEFAULT_LEASE_SECONDS = 3600;
const MIN_MTU = 68;

export interface LeaseRoute {
  destination: string;
  prefixLength: number;
  gateway: string;
}

export interface DhcpLease {
  address: string;
  subnetMask: string;
  prefixLength: number;
  serverId: string;
  /** Option 3 as received. */
  routers: string[];
  /** Option 121 as received. */
  classlessRoutes: ClasslessRoute[];
  /** What to install: option 121 when present (option 3 is then ignored, RFC 3442 §3), else a default route. */
  routes: LeaseRoute[];
  dnsServers: string[];
  domainName?: string;
  hostname?: string;
  mtu?: number;
  broadcastAddress?: string;
  ntpServers: string[];
  /** Seconds, INFINITE_LEASE for never. */
  leaseTime: number;
  renewalTime: number;
  rebindingTime: number;
  /** Epoch ms when the REQUEST that obtained this lease was sent: all timers count from here. */
  acquiredAt: number;
  /** Epoch ms; null for an infinite lease. */
  renewAt: number | null;
  rebindAt: number | null;
  expiresAt: number | null;
}

export function effectiveRoutes(routers: string[], classless: ClasslessRoute[]): LeaseRoute[] {
  if (classless.length > 0) return classless.map((r) => ({ ...r }));
  const gw = routers[0];
  return gw ? [{ destination: ZERO_ADDRESS, prefixLength: 0, gateway: gw }] : [];
}

/** T1/T2 as RFC 2131 §4.4.5 wants them: defaults 0.5 and 0.875 of the lease, and T1 < T2 < lease. */
export function leaseTimers(leaseTime: number, t1?: number, t2?: number): { renewalTime: number; rebindingTime: number } {
  if (leaseTime === INFINITE_LEASE) return { renewalTime: INFINITE_LEASE, rebindingTime: INFINITE_LEASE };
  let rebind = t2 !== undefined && t2 > 0 && t2 < leaseTime ? t2 : Math.floor(leaseTime * 0.875);
  let renew = t1 !== undefined && t1 > 0 && t1 < rebind ? t1 : Math.floor(leaseTime * 0.5);
  if (renew >= rebind) {
    renew = Math.floor(leaseTime * 0.5);
    rebind = Math.floor(leaseTime * 0.875);
  }
  return { renewalTime: renew, rebindingTime: rebind };
}

export type LeaseResult = { ok: true; lease: DhcpLease } | { ok: false; error: string };

/** Builds a lease from a DHCPACK; `requestSentAt` is when the matching REQUEST went out. */
export function leaseFromAck(ack: DhcpMessage, requestSentAt: number, fallbackServerId?: string): LeaseResult {
  const address = ack.yiaddr;
  if (address === ZERO_ADDRESS || address === "255.255.255.255") return { ok: false, error: "ACK without a usable yiaddr" };
  const serverId = readAddress(ack.options, Opt.ServerId) ?? fallbackServerId;
  if (!serverId) return { ok: false, error: "ACK without a server identifier" };

  const givenMask = readAddress(ack.options, Opt.SubnetMask);
  const givenPrefix = givenMask ? maskToPrefix(givenMask) : undefined;
  const subnetMask = givenMask && givenPrefix !== undefined ? givenMask : classfulMask(address);
  const prefixLength = maskToPrefix(subnetMask) as number;

  const leaseTime = readU32(ack.options, Opt.LeaseTime) ?? DEFAULT_LEASE_SECONDS;
  const timers = leaseTimers(leaseTime, readU32(ack.options, Opt.RenewalTime), readU32(ack.options, Opt.RebindingTime));
  const routers = readAddressList(ack.options, Opt.Router) ?? [];
  const classlessRoutes = readClasslessRoutes(ack.options) ?? [];
  const mtu = readU16(ack.options, Opt.InterfaceMtu);

  const lease: DhcpLease = {
    address,
    subnetMask,
    prefixLength,
    serverId,
    routers,
    classlessRoutes,
    routes: effectiveRoutes(routers, classlessRoutes),
    dnsServers: readAddressList(ack.options, Opt.DnsServers) ?? [],
    ntpServers: readAddressList(ack.options, Opt.NtpServers) ?? [],
    leaseTime,
    ...timers,
    acquiredAt: requestSentAt,
    ...absoluteTimes(requestSentAt, leaseTime, timers.renewalTime, timers.rebindingTime),
  };
  const domainName = readText(ack.options, Opt.DomainName);
  if (domainName) lease.domainName = domainName;
  const hostname = readText(ack.options, Opt.HostName);
  if (hostname) lease.hostname = hostname;
  if (mtu !== undefined && mtu >= MIN_MTU) lease.mtu = mtu;
  const broadcast = readAddress(ack.options, Opt.BroadcastAddress);
  if (broadcast) lease.broadcastAddress = broadcast;
  return { ok: true, lease };
}

function absoluteTimes(at: number, lease: number, t1: number, t2: number): Pick<DhcpLease, "renewAt" | "rebindAt" | "expiresAt"> {
  if (lease === INFINITE_LEASE) return { renewAt: null, rebindAt: null, expiresAt: null };
  return { renewAt: at + t1 * 1000, rebindAt: at + t2 * 1000, expiresAt: at + lease * 1000 };
}

export function isExpired(lease: DhcpLease, now: number): boolean {
  return lease.expiresAt !== null && now >= lease.expiresAt;
}

/** Remaining whole seconds, for logs and events; null when infinite. */
export function remainingSeconds(lease: DhcpLease, now: number): number | null {
  return lease.expiresAt === null ? null : Math.max(0, Math.floor((lease.expiresAt - now) / 1000));
}

function isRoute(v: unknown): v is LeaseRoute {
  if (typeof v !== "object" || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.destination === "string" &&
    isIpv4(r.destination) &&
    typeof r.gateway === "string" &&
    isIpv4(r.gateway) &&
    typeof r.prefixLength === "number" &&
    Number.isInteger(r.prefixLength) &&
    r.prefixLength >= 0 &&
    r.prefixLength <= 32
  );
}

function isAddressArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((a) => typeof a === "string" && isIpv4(a));
}

function isTime(v: unknown): v is number | null {
  return v === null || (typeof v === "number" && Number.isFinite(v));
}

/** Validates a lease read back from disk; anything unexpected makes it unusable. */
export function parseStoredLease(v: unknown): DhcpLease | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const l = v as Record<string, unknown>;
  const ok =
    typeof l.address === "string" &&
    isIpv4(l.address) &&
    typeof l.subnetMask === "string" &&
    isIpv4(l.subnetMask) &&
    typeof l.prefixLength === "number" &&
    typeof l.serverId === "string" &&
    isIpv4(l.serverId) &&
    isAddressArray(l.routers) &&
    isAddressArray(l.dnsServers) &&
    isAddressArray(l.ntpServers) &&
    Array.isArray(l.classlessRoutes) &&
    l.classlessRoutes.every(isRoute) &&
    Array.isArray(l.routes) &&
    l.routes.every(isRoute) &&
    typeof l.leaseTime === "number" &&
    typeof l.renewalTime === "number" &&
    typeof l.rebindingTime === "number" &&
    typeof l.acquiredAt === "number" &&
    isTime(l.renewAt) &&
    isTime(l.rebindAt) &&
    isTime(l.expiresAt);
  return ok ? (v as DhcpLease) : undefined;
}
