// The client's binding (delegated prefixes, addresses, information) and the pure rules that update it
// from a Reply (RFC 8415 §18.2.10.1, §21.4, §21.21, §21.22).
import { INFINITY, StatusCode } from "./constants.js";
import { findOption, findOptions, type Dhcp6Option, type OptionOf } from "./options.js";

export interface DelegatedPrefix {
  prefix: string;
  length: number;
  preferredLifetime: number;
  validLifetime: number;
  /** Unix ms of the Reply the lifetimes count from. */
  obtainedAt: number;
}

export interface LeasedAddress {
  address: string;
  preferredLifetime: number;
  validLifetime: number;
  obtainedAt: number;
}

export interface Information {
  dnsServers: string[];
  domainSearch: string[];
  sntpServers: string[];
  aftrName?: string;
  /** Information Refresh Time (s), only from Reply to Information-request. */
  refreshTime?: number;
}

export interface Lease {
  serverId: string;
  serverAddress?: string;
  /** Unix ms of the last Reply that updated the binding. */
  updatedAt: number;
  /** Effective T1/T2 in seconds from updatedAt (INFINITY = never). */
  t1: number;
  t2: number;
  prefixes: DelegatedPrefix[];
  addresses: LeasedAddress[];
  information: Information;
}

/** One IA as read from a message: its status, timers and offered leases (lifetimes in seconds). */
export interface IaView {
  type: "ia-na" | "ia-pd";
  iaid: number;
  status: number;
  statusMessage: string;
  t1: number;
  t2: number;
  prefixes: Array<{ prefix: string; length: number; preferredLifetime: number; validLifetime: number }>;
  addresses: Array<{ address: string; preferredLifetime: number; validLifetime: number }>;
  /** Why the IA must be ignored as a whole (T1 > T2). */
  invalid?: string;
}

export const EMPTY_INFORMATION: Information = { dnsServers: [], domainSearch: [], sntpServers: [] };

export function topLevelStatus(options: Dhcp6Option[]): { status: number; message: string } {
  const s = findOption(options, "status-code");
  return { status: s?.status ?? StatusCode.Success, message: s?.message ?? "" };
}

/** Reads one IA_NA or IA_PD with our IAID; leases with preferred > valid are dropped (§21.6, §21.22). */
export function readIa(options: Dhcp6Option[], kind: "ia-na" | "ia-pd", iaid: number): IaView | undefined {
  const ia = findOptions(options, kind).find((o) => o.iaid === iaid);
  if (!ia) return undefined;
  const st = topLevelStatus(ia.options);
  const view: IaView = { type: kind, iaid, status: st.status, statusMessage: st.message, t1: ia.t1, t2: ia.t2, prefixes: [], addresses: [] };
  if (ia.t1 > ia.t2 && ia.t1 > 0 && ia.t2 > 0) view.invalid = `T1 ${ia.t1} > T2 ${ia.t2}`;
  for (const p of findOptions(ia.options, "ia-prefix")) {
    if (p.preferred > p.valid) continue;
    view.prefixes.push({ prefix: p.prefix, length: p.prefixLength, preferredLifetime: p.preferred, validLifetime: p.valid });
  }
  for (const a of findOptions(ia.options, "ia-addr")) {
    if (a.preferred > a.valid) continue;
    view.addresses.push({ address: a.address, preferredLifetime: a.preferred, validLifetime: a.valid });
  }
  return view;
}

/** Leases in the view that the client can use (valid lifetime > 0). */
export function usableCount(v: IaView | undefined): number {
  if (!v || v.invalid) return 0;
  return v.prefixes.filter((p) => p.validLifetime > 0).length + v.addresses.filter((a) => a.validLifetime > 0).length;
}

export function readInformation(options: Dhcp6Option[]): Information {
  const info: Information = {
    dnsServers: findOption(options, "dns-servers")?.addresses ?? [],
    domainSearch: findOption(options, "domain-list")?.names ?? [],
    sntpServers: findOption(options, "sntp-servers")?.addresses ?? [],
  };
  const aftr = findOption(options, "aftr-name");
  if (aftr) info.aftrName = aftr.name;
  const refresh = findOption(options, "information-refresh-time");
  if (refresh) info.refreshTime = refresh.seconds;
  return info;
}

export function expiresAt(e: { validLifetime: number; obtainedAt: number }): number {
  return e.validLifetime === INFINITY ? Infinity : e.obtainedAt + e.validLifetime * 1000;
}

/** When the last lease of the binding runs out (the Rebind MRD bound, §18.2.5). */
export function leaseValidUntil(lease: Lease): number {
  const all = [...lease.prefixes, ...lease.addresses].map(expiresAt);
  return all.length === 0 ? 0 : Math.max(...all);
}

export function nextExpiry(lease: Lease): number {
  const all = [...lease.prefixes, ...lease.addresses].map(expiresAt);
  return all.length === 0 ? Infinity : Math.min(...all);
}

export function timerAt(lease: Lease, seconds: number): number {
  return seconds === INFINITY ? Infinity : lease.updatedAt + seconds * 1000;
}

export const prefixKey = (p: { prefix: string; length: number }): string => `${p.prefix}/${p.length}`;

/** Drops leases whose valid lifetime has passed. */
export function pruneExpired(lease: Lease, now: number): { lease: Lease; removed: string[] } {
  const removed = [
    ...lease.prefixes.filter((p) => expiresAt(p) <= now).map(prefixKey),
    ...lease.addresses.filter((a) => expiresAt(a) <= now).map((a) => a.address),
  ];
  return {
    lease: {
      ...lease,
      prefixes: lease.prefixes.filter((p) => expiresAt(p) > now),
      addresses: lease.addresses.filter((a) => expiresAt(a) > now),
    },
    removed,
  };
}

export function isEmpty(lease: Lease): boolean {
  return lease.prefixes.length === 0 && lease.addresses.length === 0;
}

/** T1/T2 for one IA; 0 from the server means "client decides": 0.5 and 0.8 × shortest preferred lifetime. */
function iaTimers(v: IaView): { t1: number; t2: number } {
  if (v.t1 > 0 && v.t2 > 0) return { t1: v.t1, t2: v.t2 };
  const lifetimes = [...v.prefixes, ...v.addresses].filter((e) => e.validLifetime > 0);
  const preferred = lifetimes.map((e) => e.preferredLifetime).filter((x) => x > 0);
  const base = preferred.length > 0 ? Math.min(...preferred) : Math.min(...lifetimes.map((e) => e.validLifetime));
  if (!Number.isFinite(base) || base === INFINITY) return { t1: v.t1 || INFINITY, t2: v.t2 || INFINITY };
  const t1 = v.t1 > 0 ? v.t1 : Math.max(1, Math.floor(base * 0.5));
  const t2 = v.t2 > 0 ? v.t2 : Math.max(t1, Math.floor(base * 0.8));
  return { t1, t2 };
}

export type LeaseChange = "acquired" | "renewed" | "changed" | "lost";

export interface MergeResult {
  lease: Lease;
  change: LeaseChange;
  added: string[];
  removed: string[];
}

/**
 * Applies a Reply's IAs to the recorded binding (§18.2.10.1): add new leases, update lifetimes of known
 * ones, discard those with valid lifetime 0, keep those the Reply did not mention.
 */
export function mergeReply(
  prev: Lease | undefined,
  reply: { serverId: string; serverAddress?: string; ias: IaView[]; information: Information },
  now: number,
): MergeResult {
  const prefixes = new Map((prev?.prefixes ?? []).map((p) => [prefixKey(p), p]));
  const addresses = new Map((prev?.addresses ?? []).map((a) => [a.address, a]));
  const timers: Array<{ t1: number; t2: number }> = [];
  for (const ia of reply.ias) {
    if (ia.invalid || ia.status !== StatusCode.Success) continue;
    for (const p of ia.prefixes) {
      if (p.validLifetime === 0) prefixes.delete(prefixKey(p));
      else prefixes.set(prefixKey(p), { ...p, obtainedAt: now });
    }
    for (const a of ia.addresses) {
      if (a.validLifetime === 0) addresses.delete(a.address);
      else addresses.set(a.address, { ...a, obtainedAt: now });
    }
    if (usableCount(ia) > 0) timers.push(iaTimers(ia));
  }
  const lease: Lease = {
    serverId: reply.serverId,
    updatedAt: now,
    t1: timers.length > 0 ? Math.min(...timers.map((t) => t.t1)) : (prev?.t1 ?? INFINITY),
    t2: timers.length > 0 ? Math.min(...timers.map((t) => t.t2)) : (prev?.t2 ?? INFINITY),
    prefixes: [...prefixes.values()],
    addresses: [...addresses.values()],
    information: reply.information,
  };
  if (reply.serverAddress !== undefined) lease.serverAddress = reply.serverAddress;
  const before = new Set([...(prev?.prefixes ?? []).map(prefixKey), ...(prev?.addresses ?? []).map((a) => a.address)]);
  const after = new Set([...lease.prefixes.map(prefixKey), ...lease.addresses.map((a) => a.address)]);
  const added = [...after].filter((k) => !before.has(k));
  const removed = [...before].filter((k) => !after.has(k));
  let change: LeaseChange;
  if (after.size === 0) change = "lost";
  else if (before.size === 0) change = "acquired";
  else if (added.length === 0 && removed.length === 0) change = "renewed";
  else change = "changed";
  return { lease, change, added, removed };
}

/** IA options for Renew/Rebind/Release: the recorded leases, lifetimes and timers set to 0 (§18.2.4). */
export function leaseIas(lease: Lease, pdIaid: number | undefined, naIaid: number | undefined): Dhcp6Option[] {
  const out: Dhcp6Option[] = [];
  if (pdIaid !== undefined && lease.prefixes.length > 0) {
    const options: Dhcp6Option[] = lease.prefixes.map(
      (p): OptionOf<"ia-prefix"> => ({ kind: "ia-prefix", preferred: 0, valid: 0, prefixLength: p.length, prefix: p.prefix, options: [] }),
    );
    out.push({ kind: "ia-pd", iaid: pdIaid, t1: 0, t2: 0, options });
  }
  if (naIaid !== undefined && lease.addresses.length > 0) {
    const options: Dhcp6Option[] = lease.addresses.map(
      (a): OptionOf<"ia-addr"> => ({ kind: "ia-addr", address: a.address, preferred: 0, valid: 0, options: [] }),
    );
    out.push({ kind: "ia-na", iaid: naIaid, t1: 0, t2: 0, options });
  }
  return out;
}

export function sameInformation(a: Information, b: Information): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
