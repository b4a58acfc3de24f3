// What the daemon reports about its binding: the resource phase GetStatus shows, the details routerd core
// reads (the DelegatedPrefix contract of @routerd/api's runtime view) and the withdrawn-prefix list.
// Pure: the engine's state and a clock in, JSON out.
import { INFINITY } from "./constants.js";
import type { Phase } from "./fsm-types.js";
import { expiresAt, type DelegatedPrefix, type Information, type Lease } from "./lease.js";

/** Phases in which routerd core treats the prefix as held (apps/routerd/src/core/runtime.ts). */
export const HOLDING_PHASES: ReadonlySet<string> = new Set(["Bound", "Renewing", "Rebinding"]);

const PHASE_NAMES: Record<Phase, string> = {
  init: "Starting",
  solicit: "Soliciting",
  request: "Requesting",
  bound: "Bound",
  renew: "Renewing",
  rebind: "Rebinding",
  release: "Releasing",
  information: "Informing",
  informed: "Informed",
  idle: "Released",
  stopped: "Stopped",
};

/**
 * The resource phase. "Rebinding" also covers the check of a stored lease after a restart: the binding is
 * still ours to use until it is disproved or runs out (RFC 8415 §18.2.12). "Releasing" holds nothing the
 * LAN may use any more.
 */
export function statusPhase(phase: Phase): string {
  return PHASE_NAMES[phase];
}

export interface Withdrawn {
  prefix: string;
  prefixLength: number;
  /** Unix ms until which the LAN may still be told about it as deprecated. */
  until: number;
}

/** RFC 4862 §5.5.3(e): hosts keep a valid lifetime of at most 2 hours when told a shorter one. */
export const WITHDRAWN_MAX_MS = 2 * 3600 * 1000;

/** Records prefixes that left the binding; each is remembered until its last valid lifetime (≤ 2 h) ends. */
export function recordWithdrawn(list: readonly Withdrawn[], gone: readonly DelegatedPrefix[], now: number): Withdrawn[] {
  const out = list.filter((w) => w.until > now && !gone.some((g) => g.prefix === w.prefix && g.length === w.prefixLength));
  for (const g of gone) {
    const until = Math.min(expiresAt(g), now + WITHDRAWN_MAX_MS);
    if (until > now) out.push({ prefix: g.prefix, prefixLength: g.length, until });
  }
  return out;
}

/** Drops entries that ran out, and any prefix that is back in the binding. */
export function pruneWithdrawn(list: readonly Withdrawn[], lease: Lease | undefined, now: number): Withdrawn[] {
  const held = new Set((lease?.prefixes ?? []).map((p) => `${p.prefix}/${p.length}`));
  return list.filter((w) => w.until > now && !held.has(`${w.prefix}/${w.prefixLength}`));
}

/** The prefix routerd numbers its LANs from: the one that stays valid longest (normally the only one). */
export function primaryPrefix(lease: Lease | undefined): DelegatedPrefix | undefined {
  const prefixes = lease?.prefixes ?? [];
  return [...prefixes].sort((a, b) => expiresAt(b) - expiresAt(a) || a.prefix.localeCompare(b.prefix))[0];
}

const iso = (ms: number) => new Date(Math.min(ms, 8.64e15)).toISOString();

/**
 * The server's information options as routerd core reads them: DNS and search list always, SNTP servers and
 * the AFTR name (option 64, for a DSLiteTunnel's aftrFrom) when the server sent them.
 */
export function informationJson(info: Information | undefined): Record<string, unknown> {
  return {
    dnsServers: info?.dnsServers ?? [],
    domainSearch: info?.domainSearch ?? [],
    sntpServers: info?.sntpServers ?? [],
    ...(info?.aftrName ? { aftrName: info.aftrName } : {}),
  };
}

/**
 * The resource details while a prefix is held: exactly the DelegatedPrefix JSON of @routerd/api
 * (runtime.ts), plus every prefix of the binding for operators.
 */
export function delegatedPrefixJson(lease: Lease, withdrawn: readonly Withdrawn[], information: Information | undefined): Record<string, unknown> | undefined {
  const p = primaryPrefix(lease);
  if (!p) return undefined;
  const info = lease.information ?? information;
  const out: Record<string, unknown> = {
    prefix: p.prefix,
    prefixLength: p.length,
    preferredLifetime: p.preferredLifetime,
    validLifetime: p.validLifetime,
    expiresAt: iso(p.validLifetime === INFINITY ? 8.64e15 : expiresAt(p)),
    ...informationJson(info),
    prefixes: lease.prefixes.map((x) => `${x.prefix}/${x.length}`),
  };
  if (withdrawn.length) out.withdrawn = withdrawn.map((w) => ({ prefix: w.prefix, prefixLength: w.prefixLength, until: iso(w.until) }));
  return out;
}
