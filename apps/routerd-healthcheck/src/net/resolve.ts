// A probe target as an address: IP literals as they are, host names through the system resolver
// (getaddrinfo, so /etc/hosts and the router's own resolver apply, not the uplink under test).
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { raceAbort } from "./abort.js";

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

/** Resolves `target`; with a source address only addresses of its family are considered. */
export async function resolveTarget(target: string, sourceAddress: string | undefined, signal: AbortSignal): Promise<ResolvedTarget> {
  const literal = isIP(target);
  if (literal === 4 || literal === 6) return { address: target, family: literal };
  const family = sourceAddress === undefined ? 0 : isIP(sourceAddress);
  const found = await raceAbort(lookup(target, { family }), signal);
  return { address: found.address, family: found.family === 6 ? 6 : 4 };
}
