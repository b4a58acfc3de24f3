// The JSON line printed for each client event: flat, stable field names, prefixes as "addr/len".
import type { ClientEvent } from "./events.js";
import { INFINITY } from "./constants.js";
import { expiresAt, prefixKey, type Lease } from "./lease.js";

function until(e: { validLifetime: number; obtainedAt: number }): string | null {
  return e.validLifetime === INFINITY ? null : new Date(expiresAt(e)).toISOString();
}

export function leaseJson(lease: Lease): Record<string, unknown> {
  return {
    prefixes: lease.prefixes.map((p) => ({
      prefix: prefixKey(p),
      preferredLifetime: p.preferredLifetime,
      validLifetime: p.validLifetime,
      validUntil: until(p),
    })),
    addresses: lease.addresses.map((a) => ({
      address: a.address,
      preferredLifetime: a.preferredLifetime,
      validLifetime: a.validLifetime,
      validUntil: until(a),
    })),
    t1: lease.t1,
    t2: lease.t2,
    server: { duid: lease.serverId, address: lease.serverAddress ?? null },
    information: lease.information,
  };
}

export function eventJson(e: ClientEvent, ifname: string, now: number): Record<string, unknown> {
  const head = { event: e.type, interface: ifname, time: new Date(now).toISOString() };
  switch (e.type) {
    case "acquired":
      return { ...head, ...leaseJson(e.lease) };
    case "renewed":
      return { ...head, via: e.via, ...leaseJson(e.lease) };
    case "changed":
      return { ...head, added: e.added, removed: e.removed, ...leaseJson(e.lease) };
    case "lost":
      return { ...head, reason: e.reason, removed: e.removed };
    case "expired":
    case "released":
      return { ...head, removed: e.removed };
    case "information":
      return { ...head, information: e.information };
  }
}
